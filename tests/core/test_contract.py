"""The seed contract: check_result holds a module's result to the rules and the spec; parse_context its input."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core.contract import (
    AUTHOR_ERROR,
    LEARNER_SAFE_ERROR,
    SERVICE_ERROR,
    TIMEOUT_ERROR,
    Answer,
    ContextInput,
    ContractViolation,
    build_context,
    check_result,
    parse_context,
)
from harness.core.errors import BadInput
from harness.core.lab import Lab, StepSpec, load_lab

BUCKET = {"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": "learner-bucket", "status": "found"}
POLICY = {"name": "01_02_policy", "type": "AWS::S3::BucketPolicy", "id": "learner-bucket", "status": "found"}
FAILURE = {"step": "01.02", "issue": "The policy is not public.", "hint_context": "Allow s3:GetObject."}


@pytest.fixture
def step(seed_lab: Lab) -> StepSpec:
    return seed_lab.step("01.02")


def passing() -> dict[str, Any]:
    return {"validated": [dict(BUCKET), dict(POLICY)], "success": True, "message": "ok"}


def failing() -> dict[str, Any]:
    policy = dict(POLICY, id=None, status="not_found")
    return {
        "validated": [dict(BUCKET), policy],
        "success": False,
        "message": "no policy",
        "failure_context": dict(FAILURE),
    }


def violation(result: Any, step: StepSpec) -> ContractViolation:
    with pytest.raises(ContractViolation) as caught:
        check_result(result, step, 1.0)
    assert str(caught.value).startswith(f"contract rule '{caught.value.rule}': ")
    return caught.value


# --- the results that hold ----------------------------------------------------------------------------


def test_valid_pass_result(step: StepSpec) -> None:
    answer = check_result(passing(), step, 12.3456)
    assert answer.step == "01.02"
    assert answer.status == "pass" and answer.success is True
    assert answer.message == "ok"
    assert answer.error is None and answer.failure_context is None
    assert [e.name for e in answer.validated] == ["01_01_bucket", "01_02_policy"]
    # only this step's outputs are resolved, never the input it re-verified
    assert [(h.name, h.type, h.id) for h in answer.resolved] == [
        ("01_02_policy", "AWS::S3::BucketPolicy", "learner-bucket")
    ]
    assert answer.duration_ms == 12.35


def test_valid_fail_result(step: StepSpec) -> None:
    answer = check_result(failing(), step, 3.0)
    assert answer.status == "fail" and answer.success is False
    assert answer.failure_context is not None
    assert answer.failure_context.model_dump() == FAILURE
    assert answer.resolved == []
    assert answer.error is None


def test_a_result_with_retry_after_is_pending(step: StepSpec) -> None:
    """Not yet: the seed keys as any platform reads them (success false, the output not_found), the status and
    the wait beside them."""
    answer = check_result({**failing(), "retry_after_s": 60}, step, 1.0)
    assert (answer.status, answer.success, answer.retry_after_s) == ("pending", False, 60)
    assert answer.failure_context is not None and answer.error is None
    assert check_result(failing(), step, 1.0).retry_after_s is None


@pytest.mark.parametrize("value", [0, -5, 3601, 2.5, True, "60"])
def test_retry_after_is_a_whole_number_of_seconds(step: StepSpec, value: Any) -> None:
    assert violation({**failing(), "retry_after_s": value}, step).rule == "retry-after-shape"


def test_pending_is_not_success(step: StepSpec) -> None:
    assert violation({**passing(), "retry_after_s": 30}, step).rule == "pending-is-not-success"


def test_checks_andlog_lines_are_author_only_diagnostics_progress_stays_visible(step: StepSpec) -> None:
    checks = [
        {"handle": "01_02_policy", "check": "public read", "ok": False, "expected": True, "actual": False},
        {"handle": "01_02_policy", "check": "parses", "ok": True, "expected": True, "actual": True},
    ]
    answer = check_result({**failing(), "checks": checks}, step, 3.0, ["INFO looked at learner-bucket"])
    shown = json.loads(answer.model_dump_json())
    assert "checks" not in shown  # not beside message and failure_context, where the learner looks
    assert shown["progress"] == {"passed": 1, "total": 2}
    assert shown["diagnostics"]["checks"] == checks
    assert shown["diagnostics"]["log"] == ["INFO looked at learner-bucket"]
    assert answer.checks == answer.diagnostics.checks
    assert check_result(passing(), step, 1.0).diagnostics is None  # nothing to say


def test_progress_counts_the_steps_own_checks_not_an_inputs_re_verification(step: StepSpec) -> None:
    bucket = {"handle": "01_01_bucket", "check": "exists", "ok": True, "expected": True, "actual": True}
    policy = {"handle": "01_02_policy", "check": "exists", "ok": False, "expected": True, "actual": False}
    mine = {"handle": None, "check": "my own", "ok": True, "expected": 1, "actual": 1}
    answer = check_result({**failing(), "checks": [bucket, policy, mine]}, step, 1.0)
    assert answer.progress is not None and (answer.progress.passed, answer.progress.total) == (1, 2)
    assert len(answer.checks) == 3  # every check stays in the author's diagnostics
    only_inputs = check_result({**passing(), "checks": [bucket]}, step, 1.0)  # nothing else to count
    assert only_inputs.progress is not None and (only_inputs.progress.passed, only_inputs.progress.total) == (1, 1)


def test_an_authors_error_does_not_promise_that_a_retry_helps() -> None:
    for kind in ("load", "contract", "exception"):
        answer = Answer.failed_to_run("01.02", kind, "no module named boto4")
        assert answer.message == AUTHOR_ERROR and "not a verdict on your work" in answer.message
        assert "try again in a moment" not in answer.message and "will not help" in answer.message


def test_a_timeout_and_the_service_s_own_set_up_are_said_as_they_are() -> None:
    """A timeout may recur at every try (a step slower than its timeout): the learner may try again and is asked to
    report it if it does; the service's own set-up is never the learner's to wait out."""
    timeout = Answer.failed_to_run("01.02", "timeout", "run() did not finish within 30 s")
    assert timeout.message == TIMEOUT_ERROR and "if it happens again, please tell the lab's support" in timeout.message
    assert "try again in a moment" not in timeout.message and timeout.retry_after_s is None
    service = Answer.failed_to_run("01.02", "service", "STS at http://127.0.0.1:15999 cannot be reached")
    assert service.message == SERVICE_ERROR and "will not help until its operators fix it" in service.message
    for answer in (timeout, service):
        assert "not a verdict on your work" in answer.message


def test_answer_failed_to_run_is_learner_safe() -> None:
    answer = Answer.failed_to_run("01.02", "sandbox", "sts:AssumeRole: Throttling", 1234.5678)
    assert answer.status == "error" and answer.success is False
    assert answer.message == LEARNER_SAFE_ERROR
    assert "not a verdict on your work" in answer.message
    for word in ("wrong", "incorrect", "failed", "error"):
        assert word not in answer.message.lower()
    assert answer.error is not None
    assert answer.error.kind == "sandbox"
    assert answer.error.detail == "sts:AssumeRole: Throttling"
    assert answer.duration_ms == 1234.57
    assert answer.validated == [] and answer.resolved == [] and answer.failure_context is None


# --- one test per rule -----------------------------------------------------------------------------------


@pytest.mark.parametrize("result", [None, [], "ok", 1])
def test_result_not_a_dict(step: StepSpec, result: Any) -> None:
    exc = violation(result, step)
    assert exc.rule == "result-is-dict"
    assert f"run() returned {type(result).__name__}, not a dict" in str(exc)


@pytest.mark.parametrize("key", ["validated", "success", "message"])
def test_missing_required_key(step: StepSpec, key: str) -> None:
    result = passing()
    del result[key]
    exc = violation(result, step)
    assert exc.rule == "required-keys"
    assert f"the result has no {key!r}" in str(exc)


def test_validated_not_a_list(step: StepSpec) -> None:
    result = passing()
    result["validated"] = {"01_02_policy": "found"}
    exc = violation(result, step)
    assert exc.rule == "validated-is-list"
    assert "validated is dict, not a list" in str(exc)


def test_entry_not_a_dict(step: StepSpec) -> None:
    result = passing()
    result["validated"][1] = "01_02_policy"
    exc = violation(result, step)
    assert exc.rule == "entry-shape"
    assert "validated[1] is str, not an object" in str(exc)


@pytest.mark.parametrize("key", ["name", "type", "id", "status"])
def test_entry_lacking_a_key(step: StepSpec, key: str) -> None:
    result = passing()
    del result["validated"][1][key]
    exc = violation(result, step)
    assert exc.rule == "entry-keys"
    assert f"lacks {key}" in str(exc)
    assert "validated[1]" in str(exc)
    if key != "name":
        assert "(01_02_policy)" in str(exc)


def test_entry_status_maybe(step: StepSpec) -> None:
    result = passing()
    result["validated"][1]["status"] = "maybe"
    exc = violation(result, step)
    assert exc.rule == "entry-status"
    assert "validated[1] (01_02_policy) has status 'maybe'" in str(exc)


def test_success_true_while_an_entry_is_not_found(step: StepSpec) -> None:
    result = passing()
    result["validated"][1].update(status="not_found", id=None)
    exc = violation(result, step)
    assert exc.rule == "success-matches-entries"
    assert "success is true but 01_02_policy is not_found" in str(exc)


def test_success_false_while_all_found_without_failure_context(step: StepSpec) -> None:
    result = passing()
    result["success"] = False
    exc = violation(result, step)
    assert exc.rule == "success-matches-entries"
    assert "every entry is found and there is no failure_context" in str(exc)


def test_success_false_while_all_found_is_allowed_with_failure_context(step: StepSpec) -> None:
    result = passing()
    result.update(success=False, failure_context=dict(FAILURE))
    answer = check_result(result, step, 0.0)
    assert answer.status == "fail" and answer.success is False
    assert answer.failure_context is not None and answer.failure_context.issue == FAILURE["issue"]
    # the policy exists, so it is resolved even though the step fails on its content
    assert [h.name for h in answer.resolved] == ["01_02_policy"]


def test_spec_output_missing_from_validated(step: StepSpec) -> None:
    result = passing()
    result["validated"] = [dict(BUCKET)]
    exc = violation(result, step)
    assert exc.rule == "outputs-validated"
    assert "spec output 01_02_policy is missing from validated" in str(exc)


def test_name_neither_output_nor_input(step: StepSpec) -> None:
    result = passing()
    result["validated"].append(dict(POLICY, name="02_01_vpc"))
    exc = violation(result, step)
    assert exc.rule == "entry-name"
    assert "validated[2] (02_01_vpc): 02_01_vpc is neither an output nor an input of 01.02" in str(exc)


def test_output_type_differs_from_spec(step: StepSpec) -> None:
    result = passing()
    result["validated"][1]["type"] = "AWS::S3::Bucket"
    exc = violation(result, step)
    assert exc.rule == "entry-type"
    assert "validated[1] (01_02_policy): type AWS::S3::Bucket differs from the spec's AWS::S3::BucketPolicy" in str(exc)


def test_input_type_differs_from_spec(step: StepSpec) -> None:
    result = passing()
    result["validated"][0]["type"] = "AWS::EC2::VPC"
    exc = violation(result, step)
    assert exc.rule == "entry-type"
    assert "validated[0] (01_01_bucket): type AWS::EC2::VPC differs from the spec's AWS::S3::Bucket" in str(exc)


@pytest.mark.parametrize("missing_id", [None, ""])
def test_found_entry_without_id(step: StepSpec, missing_id: str | None) -> None:
    result = passing()
    result["validated"][1]["id"] = missing_id
    exc = violation(result, step)
    assert exc.rule == "found-has-id"
    assert "validated[1] (01_02_policy) is found but has no id" in str(exc)


def test_entry_id_not_a_string(step: StepSpec) -> None:
    result = passing()
    result["validated"][1]["id"] = 42
    exc = violation(result, step)
    assert exc.rule == "entry-shape"
    assert "validated[1] (01_02_policy): id must be a string or null" in str(exc)


def test_entry_name_not_a_string(step: StepSpec) -> None:
    result = passing()
    result["validated"][1]["name"] = 7
    exc = violation(result, step)
    assert exc.rule == "entry-shape"
    assert "validated[1] (7): name and type must be strings" in str(exc)


@pytest.mark.parametrize("key", ["step", "issue", "hint_context"])
def test_failure_context_lacking_a_key(step: StepSpec, key: str) -> None:
    result = failing()
    del result["failure_context"][key]
    exc = violation(result, step)
    assert exc.rule == "failure-context-keys"
    assert f"failure_context lacks {key}" in str(exc)


@pytest.mark.parametrize("value", ["no policy", ["step", "issue"], 3])
def test_failure_context_not_a_dict(step: StepSpec, value: Any) -> None:
    result = failing()
    result["failure_context"] = value
    exc = violation(result, step)
    assert exc.rule == "failure-context-shape"
    assert f"failure_context is {type(value).__name__}, not an object" in str(exc)


def test_failure_context_value_not_a_string(step: StepSpec) -> None:
    result = failing()
    result["failure_context"]["issue"] = ["a", "list"]
    exc = violation(result, step)
    assert exc.rule == "failure-context-shape"
    assert "must be strings" in str(exc)


@pytest.mark.parametrize("value", ["true", 1, None])
def test_success_not_a_bool(step: StepSpec, value: Any) -> None:
    result = passing()
    result["success"] = value
    exc = violation(result, step)
    assert exc.rule == "success-is-bool"
    assert f"success is {value!r}, not true or false" in str(exc)


@pytest.mark.parametrize("value", [None, 1, ["ok"]])
def test_message_not_a_string(step: StepSpec, value: Any) -> None:
    result = passing()
    result["message"] = value
    exc = violation(result, step)
    assert exc.rule == "message-is-text"
    assert f"message is {type(value).__name__}, not a string" in str(exc)


def test_check_result_does_not_mutate_the_result(step: StepSpec) -> None:
    result = failing()
    before = copy.deepcopy(result)
    check_result(result, step, 0.0)
    assert result == before


# --- property: success always agrees with the entries --------------------------------------------------

MULTI_SPEC = """\
project: multi
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs: [{name: vpc, type: AWS::EC2::VPC}]
      - id: "02"
        inputs: [vpc]
        outputs:
          - {name: subnet_a, type: AWS::EC2::Subnet}
          - {name: subnet_b, type: AWS::EC2::Subnet}
          - {name: route_table, type: AWS::EC2::RouteTable}
"""


@pytest.fixture(scope="module")
def multi_step(tmp_path_factory: pytest.TempPathFactory) -> StepSpec:
    root = tmp_path_factory.mktemp("multi")
    (root / "specs").mkdir()
    (root / "specs" / "multi.yaml").write_text(MULTI_SPEC)
    return load_lab(root).step("01.02")


ID = st.one_of(st.text(min_size=1, max_size=8), st.sampled_from([None, ""]))


def entry(names: dict[str, str], name: str, status: str, ident: str | None) -> dict[str, Any]:
    return {"name": name, "type": names[name], "id": ident, "status": status}


def entries_strategy(step: StepSpec) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Usually one entry per output (sometimes one dropped), plus a few random extras, shuffled."""
    names = {**step.input_types, **step.output_types}
    one = st.builds(
        lambda name, status, ident: entry(names, name, status, ident),
        st.sampled_from(sorted(names)),
        st.sampled_from(["found", "not_found"]),
        ID,
    )

    @st.composite
    def build(draw: st.DrawFn) -> list[dict[str, Any]]:
        base = []
        for name in step.output_types:
            status = draw(st.sampled_from(["found", "found", "found", "not_found"]))
            ident = draw(st.text(min_size=1, max_size=8) if status == "found" else st.none())
            base.append(entry(names, name, status, ident))
        if base and draw(st.integers(0, 7)) == 0:
            base.pop(draw(st.integers(0, len(base) - 1)))
        extras = draw(st.lists(one, max_size=2))
        return draw(st.permutations(base + extras))

    return build()


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_success_equals_all_found_or_the_result_is_refused(multi_step: StepSpec, data: st.DataObject) -> None:
    entries = data.draw(entries_strategy(multi_step), label="validated")
    success = data.draw(st.booleans(), label="success")
    result = {"validated": entries, "success": success, "message": "m"}
    try:
        answer = check_result(result, multi_step, 0.0)
    except ContractViolation as exc:
        assert exc.rule in {"found-has-id", "outputs-validated", "success-matches-entries"}
        return
    assert answer.success == all(e["status"] == "found" for e in entries)
    assert answer.status == ("pass" if answer.success else "fail")
    assert set(multi_step.output_types) <= {e.name for e in answer.validated}
    assert {h.name for h in answer.resolved} <= set(multi_step.output_types)
    assert all(h.id for h in answer.resolved)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_with_failure_context_success_still_implies_all_found(multi_step: StepSpec, data: st.DataObject) -> None:
    entries = data.draw(entries_strategy(multi_step), label="validated")
    success = data.draw(st.booleans(), label="success")
    result = {"validated": entries, "success": success, "message": "m", "failure_context": dict(FAILURE)}
    try:
        answer = check_result(result, multi_step, 0.0)
    except ContractViolation:
        return
    if answer.success:
        assert all(e["status"] == "found" for e in entries)
    else:
        assert answer.failure_context is not None


# --- parse_context --------------------------------------------------------------------------------------

GOOD_CONTEXT = {
    "resolved": [{"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": "learner-bucket"}],
    "events": [{"type": "AWS::S3::BucketPolicy", "id": "learner-bucket"}],
}


def bad_context(raw: Any, lab: Lab) -> str:
    with pytest.raises(BadInput) as caught:
        parse_context(raw, source="ctx.json", lab=lab)
    message = str(caught.value)
    assert message.startswith("ctx.json: ")
    assert "\n" not in message
    return message


def test_parse_context_accepts_resolved_and_events(seed_lab: Lab) -> None:
    context = parse_context(GOOD_CONTEXT, source="ctx.json", lab=seed_lab)
    assert [h.model_dump() for h in context.resolved] == GOOD_CONTEXT["resolved"]
    assert [e.model_dump() for e in context.events] == GOOD_CONTEXT["events"]


def test_parse_context_defaults_to_empty(seed_lab: Lab) -> None:
    context = parse_context({}, source="ctx.json", lab=seed_lab)
    assert context == ContextInput()
    assert context.resolved == [] and context.events == []


def test_build_context_adds_the_spec_slice(seed_lab: Lab) -> None:
    step = seed_lab.step("01.02")
    built = build_context(parse_context(GOOD_CONTEXT, source="ctx.json", lab=seed_lab), step)
    assert built["resolved"] == GOOD_CONTEXT["resolved"]
    assert built["events"] == GOOD_CONTEXT["events"]
    assert built["spec"] == step.slice()


@pytest.mark.parametrize("raw", [[], "context", None, 3])
def test_context_not_an_object(seed_lab: Lab, raw: Any) -> None:
    assert bad_context(raw, seed_lab) == "ctx.json: the context must be a JSON object with 'resolved' and 'events'"


def test_resolved_not_a_list(seed_lab: Lab) -> None:
    message = bad_context({"resolved": {"01_01_bucket": "b"}}, seed_lab)
    assert message.startswith("ctx.json: resolved: ")
    assert "valid list" in message


def test_event_id_a_number(seed_lab: Lab) -> None:
    message = bad_context({"events": [{"type": "AWS::S3::Bucket", "id": 42}]}, seed_lab)
    assert message.startswith("ctx.json: events[0].id: ")
    assert "valid string" in message


def test_event_type_bad(seed_lab: Lab) -> None:
    message = bad_context({"events": [{"type": "bad", "id": "x"}]}, seed_lab)
    assert message == "ctx.json: events[0].type: 'bad' is not of the form AWS::Service::Resource"


def test_resolved_type_bad(seed_lab: Lab) -> None:
    raw = {"resolved": [{"name": "01_01_bucket", "type": "bad", "id": "x"}]}
    assert bad_context(raw, seed_lab) == "ctx.json: resolved[0].type: 'bad' is not of the form AWS::Service::Resource"


def test_resolved_empty_id(seed_lab: Lab) -> None:
    raw = {"resolved": [{"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": ""}]}
    assert bad_context(raw, seed_lab).startswith("ctx.json: resolved[0].id: ")


@pytest.mark.parametrize("key", ["spec", "step", "Resolved"])
def test_unknown_top_level_key(seed_lab: Lab, key: str) -> None:
    raw = dict(GOOD_CONTEXT, **{key: {}})
    assert bad_context(raw, seed_lab) == f"ctx.json: {key}: unknown key"


def test_unknown_key_inside_a_handle(seed_lab: Lab) -> None:
    raw = {"resolved": [dict(GOOD_CONTEXT["resolved"][0], status="found")]}
    assert bad_context(raw, seed_lab) == "ctx.json: resolved[0].status: unknown key"


def test_resolved_name_not_in_the_lab(seed_lab: Lab) -> None:
    raw = {"resolved": [*GOOD_CONTEXT["resolved"], {"name": "09_09_vpc", "type": "AWS::EC2::VPC", "id": "vpc-1"}]}
    assert bad_context(raw, seed_lab) == "ctx.json: resolved[1].name: '09_09_vpc' is not a handle of this lab"


def test_resolved_handle_with_the_wrong_type(seed_lab: Lab) -> None:
    raw = {"resolved": [{"name": "01_01_bucket", "type": "AWS::S3::BucketPolicy", "id": "b"}]}
    assert bad_context(raw, seed_lab) == (
        "ctx.json: resolved[0].type: 01_01_bucket is a AWS::S3::Bucket, not AWS::S3::BucketPolicy"
    )


def test_context_from_a_real_file_round_trips(seed_lab: Lab, tmp_path: Path) -> None:
    path = tmp_path / "ctx.json"
    path.write_text(json.dumps(GOOD_CONTEXT))
    context = parse_context(json.loads(path.read_text()), source=str(path), lab=seed_lab)
    assert context.model_dump() == GOOD_CONTEXT


def test_log_lines_from_a_worker_reply_are_held_to_their_limits() -> None:
    from harness.sandbox.runner import MAX_LOG_LINE_CHARS, MAX_LOG_LINES, log_lines

    assert log_lines({"not": "a list"}) == [] and log_lines(None) == []
    lines = log_lines(["x" * 10_000] * 1000 + [3])
    assert len(lines) == MAX_LOG_LINES and all(len(line) == MAX_LOG_LINE_CHARS for line in lines)
