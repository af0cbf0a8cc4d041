"""Lab spec loading and validation: every problem names the spec file, the step and the field."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.core.errors import BadInput, LabError
from harness.core.lab import DEFAULT_TIMEOUT_S, Lab, load_lab, normalize_step_key

SEED_SPEC = """\
project: seed-examples
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs:
          - {name: 01_01_bucket, type: AWS::S3::Bucket}
      - id: "02"
        inputs: [01_01_bucket]
        outputs:
          - {name: 01_02_policy, type: AWS::S3::BucketPolicy}
"""


def write_lab(root: Path, text: str, name: str = "x.yaml") -> Path:
    """A lab directory holding one spec file with `text`."""
    specs = root / "specs"
    specs.mkdir(parents=True, exist_ok=True)
    (specs / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def spec_path(root: Path, name: str = "x.yaml") -> str:
    return str((root / "specs" / name).resolve())


def problems_of(root: Path, text: str) -> list[str]:
    """The LabError problems for a lab whose spec is `text` (the load must fail)."""
    write_lab(root, text)
    with pytest.raises(LabError) as caught:
        load_lab(root)
    problems = caught.value.problems
    assert problems, "a LabError must list at least one problem"
    assert str(caught.value) == "\n".join(problems)
    return problems


def only_real_problem(problems: list[str]) -> str:
    """The one problem reported (a nested error must not also produce an echo on its parent list)."""
    assert len(problems) == 1, problems
    return problems[0]


def one_step(step_body: str, *, objective_extra: str = "", top_extra: str = "") -> str:
    """A one-objective spec whose steps list is `step_body` (already indented for the steps list)."""
    return f'project: p\n{top_extra}objectives:\n  - id: "01"\n{objective_extra}    steps:\n' + textwrap.indent(
        textwrap.dedent(step_body), "      "
    )


# --- the shape that loads ---------------------------------------------------------------------------


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    return load_lab(write_lab(tmp_path, SEED_SPEC))


def test_minimal_seed_shape_loads(lab: Lab, tmp_path: Path) -> None:
    assert list(lab.steps) == ["01.01", "01.02"]
    assert lab.spec.project == "seed-examples"
    assert lab.spec_file == Path(spec_path(tmp_path))
    assert lab.handle_types == {"01_01_bucket": "AWS::S3::Bucket", "01_02_policy": "AWS::S3::BucketPolicy"}


def test_step_slice_has_inputs_and_outputs(lab: Lab) -> None:
    piece = lab.step("01.02").slice()
    assert piece["step"] == "01.02"
    assert piece["inputs"] == ["01_01_bucket"]
    assert piece["outputs"] == [{"name": "01_02_policy", "type": "AWS::S3::BucketPolicy"}]
    assert lab.step("01.01").slice()["inputs"] == []


def test_step_knows_its_module_and_handle_types(lab: Lab, tmp_path: Path) -> None:
    step = lab.step("01_02")
    assert step.key == "01.02"
    assert step.stem == "01_02"
    assert step.module_path == tmp_path.resolve() / "evaluation" / "boto3" / "01_02.py"
    assert step.input_types == {"01_01_bucket": "AWS::S3::Bucket"}
    assert step.output_types == {"01_02_policy": "AWS::S3::BucketPolicy"}


def test_unknown_step_is_bad_input_listing_known_steps(lab: Lab) -> None:
    with pytest.raises(BadInput, match=r"no step 09\.09 in this lab \(steps: 01\.01, 01\.02\)"):
        lab.step("09.09")


def test_timeout_defaults_to_30_seconds(lab: Lab) -> None:
    assert DEFAULT_TIMEOUT_S == 30.0
    assert [s.timeout_s for s in lab.steps.values()] == [30.0, 30.0]


def test_lab_level_timeout_applies_to_every_step(tmp_path: Path) -> None:
    lab = load_lab(write_lab(tmp_path, "timeout: 12\n" + SEED_SPEC))
    assert [s.timeout_s for s in lab.steps.values()] == [12.0, 12.0]


def test_step_level_timeout_overrides_the_lab(tmp_path: Path) -> None:
    text = SEED_SPEC.replace('      - id: "02"\n', '      - id: "02"\n        timeout: 5\n')
    lab = load_lab(write_lab(tmp_path, "timeout: 12\n" + text))
    assert lab.step("01.01").timeout_s == 12.0
    assert lab.step("01.02").timeout_s == 5.0


@pytest.mark.parametrize("value", ["0", "-1", "901"])
def test_out_of_range_step_timeout_names_step_and_field(tmp_path: Path, value: str) -> None:
    text = SEED_SPEC.replace('      - id: "02"\n', f'      - id: "02"\n        timeout: {value}\n')
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem.startswith(f"{spec_path(tmp_path)}: step 01.02: timeout: ")


def test_limits_default_then_lab_then_step(tmp_path: Path) -> None:
    text = SEED_SPEC.replace('      - id: "02"\n', '      - id: "02"\n        limits: {processes: 8}\n')
    lab = load_lab(write_lab(tmp_path, "limits: {memory_mib: 256, processes: 32}\n" + text))
    first, second = lab.step("01.01").limits, lab.step("01.02").limits
    assert (first.memory_mib, first.processes, first.output_kib, first.cpu_seconds) == (256, 32, 1024, None)
    assert (second.memory_mib, second.processes) == (256, 8)
    assert load_lab(write_lab(tmp_path, SEED_SPEC)).step("01.01").limits.memory_mib == 512  # old specs: defaults


@pytest.mark.parametrize(
    ("limits", "field"),
    [
        ("{memory_mib: 8}", "memory_mib"),
        ("{processes: 0}", "processes"),
        ("{cpu_seconds: 0}", "cpu_seconds"),
        ("{output_kib: -1}", "output_kib"),
        ("{disk: 1}", "disk"),
    ],
)
def test_a_bad_limit_names_step_and_field(tmp_path: Path, limits: str, field: str) -> None:
    text = SEED_SPEC.replace('      - id: "02"\n', f'      - id: "02"\n        limits: {limits}\n')
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem.startswith(f"{spec_path(tmp_path)}: step 01.02: limits.{field}: "), problem


# --- errors that name file, step and field ------------------------------------------------------------


def test_duplicate_handle_name(tmp_path: Path) -> None:
    text = SEED_SPEC.replace("{name: 01_02_policy,", "{name: 01_01_bucket,")
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem == f"{spec_path(tmp_path)}: step 01.02: outputs: duplicate handle name '01_01_bucket'"


def test_input_that_no_step_outputs(tmp_path: Path) -> None:
    text = SEED_SPEC.replace("inputs: [01_01_bucket]", "inputs: [01_01_bucket, nowhere]")
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem == f"{spec_path(tmp_path)}: step 01.02: inputs: 'nowhere' is not an output of an earlier step"


def test_input_that_only_a_later_step_outputs(tmp_path: Path) -> None:
    text = SEED_SPEC.replace('      - id: "01"\n', '      - id: "01"\n        inputs: [01_02_policy]\n')
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem == f"{spec_path(tmp_path)}: step 01.01: inputs: '01_02_policy' is not an output of an earlier step"


def test_input_that_the_same_step_outputs(tmp_path: Path) -> None:
    text = SEED_SPEC.replace('      - id: "01"\n', '      - id: "01"\n        inputs: [01_01_bucket]\n')
    problem = only_real_problem(problems_of(tmp_path, text))
    assert "step 01.01: inputs: '01_01_bucket' is not an output of an earlier step" in problem


@pytest.mark.parametrize("bad_type", ["S3::Bucket", "AWS::S3", "aws::s3::bucket", "AWS::S3::Bucket::Extra"])
def test_type_not_of_the_form_aws_service_resource(tmp_path: Path, bad_type: str) -> None:
    text = SEED_SPEC.replace("type: AWS::S3::BucketPolicy", f"type: '{bad_type}'")
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem == (
        f"{spec_path(tmp_path)}: step 01.02: outputs[0].type: '{bad_type}' is not of the form AWS::Service::Resource"
    )


@pytest.mark.parametrize(
    ("bad_type", "close"),
    [("AWS::S3::BucketPolicyy", "AWS::S3::BucketPolicy"), ("AWS::EC2::Vpc", "AWS::EC2::VPC"), ("AWS::Foo::Bar", None)],
)
def test_type_that_does_not_exist_gets_a_did_you_mean(tmp_path: Path, bad_type: str, close: str | None) -> None:
    text = SEED_SPEC.replace("type: AWS::S3::BucketPolicy", f"type: '{bad_type}'")
    problem = only_real_problem(problems_of(tmp_path, text))
    did_you_mean = f" (did you mean {close}?)" if close else ""
    assert problem == (
        f"{spec_path(tmp_path)}: step 01.02: outputs[0].type: '{bad_type}' is not a CloudFormation resource type"
        f"{did_you_mean}"
    )


def test_the_emulator_needs_a_lab_declares(tmp_path: Path) -> None:
    write_lab(tmp_path, SEED_SPEC.replace("objectives:", "emulator: {iam_managed_policies: true}\nobjectives:"))
    lab = load_lab(tmp_path)
    assert lab.spec.emulator.environment() == {"MOTO_IAM_LOAD_MANAGED_POLICIES": "true"}
    text = SEED_SPEC.replace("objectives:", "emulator: {managed_policies: true}\nobjectives:")
    assert only_real_problem(problems_of(tmp_path, text)).endswith(
        "emulator.managed_policies: unknown key (did you mean 'iam_managed_policies'?)"
    )


@pytest.mark.parametrize("bad_id", ["1", "001", "ab", ""])
def test_step_id_not_two_digits(tmp_path: Path, bad_id: str) -> None:
    text = SEED_SPEC.replace('      - id: "02"', f'      - id: "{bad_id}"')
    problem = only_real_problem(problems_of(tmp_path, text))
    # an invalid id cannot name the step, so the step is named by its position
    assert problem == f"{spec_path(tmp_path)}: step 01.#2: id: must be two digits like '01', got {bad_id!r}"


@pytest.mark.parametrize("bad_id", ["1", "001", "ab"])
def test_objective_id_not_two_digits(tmp_path: Path, bad_id: str) -> None:
    text = SEED_SPEC.replace('  - id: "01"\n    steps:', f'  - id: "{bad_id}"\n    steps:')
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem == f"{spec_path(tmp_path)}: objective #1: id: must be two digits like '01', got {bad_id!r}"


@pytest.mark.parametrize("bad_id", ["01\\n", "\u0660\u0661"])
def test_step_id_with_newline_or_non_ascii_digits_is_rejected(tmp_path: Path, bad_id: str) -> None:
    text = SEED_SPEC.replace('      - id: "02"', f'      - id: "{bad_id}"')
    problems = problems_of(tmp_path, text)
    assert any("id: must be two digits" in p for p in problems)


def test_unquoted_yaml_id_says_to_quote_it(tmp_path: Path) -> None:
    text = SEED_SPEC.replace('      - id: "02"', "      - id: 02")
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem.startswith(f"{spec_path(tmp_path)}: step 01.02: id: ")
    assert 'must be a two-digit string like "02" (quote it in YAML), got 2' in problem


def test_unquoted_yaml_objective_id_says_to_quote_it(tmp_path: Path) -> None:
    text = SEED_SPEC.replace('  - id: "01"\n    steps:', "  - id: 01\n    steps:")
    problems = problems_of(tmp_path, text)
    assert f"{spec_path(tmp_path)}: objective 01: id: " in problems[0]
    assert "(quote it in YAML), got 1" in problems[0]


def test_unknown_top_level_key(tmp_path: Path) -> None:
    problem = only_real_problem(problems_of(tmp_path, "colour: red\n" + SEED_SPEC))
    assert problem == f"{spec_path(tmp_path)}: colour: unknown key"


def test_unknown_objective_key(tmp_path: Path) -> None:
    text = SEED_SPEC.replace('  - id: "01"\n    steps:', '  - id: "01"\n    colour: red\n    steps:')
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem == f"{spec_path(tmp_path)}: objective 01: colour: unknown key"


def test_unknown_step_key(tmp_path: Path) -> None:
    text = SEED_SPEC.replace('      - id: "02"\n', '      - id: "02"\n        colour: red\n')
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem == f"{spec_path(tmp_path)}: step 01.02: colour: unknown key"


def test_a_misspelt_step_key_is_answered_with_the_key_it_is_close_to(tmp_path: Path) -> None:
    text = SEED_SPEC.replace("        inputs: [01_01_bucket]", "        input: [01_01_bucket]", 1)
    problems = [p for p in problems_of(tmp_path, text) if "unknown key" in p]
    assert problems == [f"{spec_path(tmp_path)}: step 01.02: input: unknown key (did you mean 'inputs'?)"]


def test_unknown_output_key(tmp_path: Path) -> None:
    text = SEED_SPEC.replace("type: AWS::S3::BucketPolicy}", "type: AWS::S3::BucketPolicy, colour: red}")
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem == f"{spec_path(tmp_path)}: step 01.02: outputs[0].colour: unknown key"


def test_missing_outputs(tmp_path: Path) -> None:
    text = one_step('- id: "01"\n  title: no outputs here\n')
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem == f"{spec_path(tmp_path)}: step 01.01: outputs: Field required"


def test_empty_outputs(tmp_path: Path) -> None:
    problems = problems_of(tmp_path, one_step('- id: "01"\n  outputs: []\n'))
    assert f"{spec_path(tmp_path)}: step 01.01: outputs: must list at least one entry" in (problems)


def test_empty_objectives(tmp_path: Path) -> None:
    (problem,) = problems_of(tmp_path, "project: p\nobjectives: []\n")
    assert problem == f"{spec_path(tmp_path)}: objectives: must list at least one entry"


def test_invalid_yaml_is_one_line(tmp_path: Path) -> None:
    problem = only_real_problem(problems_of(tmp_path, "project: p\nobjectives: [\n  - {id: '01'\n"))
    assert problem.startswith(f"{spec_path(tmp_path)}:3:3: not valid YAML: ")  # file:line:column
    assert "\n" not in problem and "<unicode string>" not in problem


def test_spec_that_is_a_list(tmp_path: Path) -> None:
    problem = only_real_problem(problems_of(tmp_path, "- project: p\n- objectives: []\n"))
    assert problem == f"{spec_path(tmp_path)}: the spec must be a mapping with 'project' and 'objectives'"


def test_empty_spec_file(tmp_path: Path) -> None:
    problem = only_real_problem(problems_of(tmp_path, ""))
    assert "the spec must be a mapping" in problem


def test_no_specs_directory(tmp_path: Path) -> None:
    with pytest.raises(LabError) as caught:
        load_lab(tmp_path)
    assert caught.value.problems == [f"{tmp_path.resolve()}: no specs/ directory (a lab holds specs/<lab>.yaml)"]


def test_two_spec_files(tmp_path: Path) -> None:
    write_lab(tmp_path, SEED_SPEC, "a.yaml")
    write_lab(tmp_path, SEED_SPEC, "b.yml")
    with pytest.raises(LabError) as caught:
        load_lab(tmp_path)
    (problem,) = caught.value.problems
    assert problem == f"{(tmp_path / 'specs').resolve()}: expected exactly one .yaml spec file, found a.yaml, b.yml"


def test_specs_directory_without_yaml(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "notes.txt").write_text("not a spec")
    with pytest.raises(LabError, match=r"expected exactly one \.yaml spec file, found none"):
        load_lab(tmp_path)


def test_duplicate_step_keys(tmp_path: Path) -> None:
    text = SEED_SPEC.replace('      - id: "02"', '      - id: "01"')
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem == f"{spec_path(tmp_path)}: step 01.01: id: duplicate step key"


def test_duplicate_objective_ids(tmp_path: Path) -> None:
    text = (
        SEED_SPEC
        + '  - id: "01"\n    steps:\n      - id: "05"\n        outputs: [{name: other, type: AWS::EC2::VPC}]\n'
    )
    problem = only_real_problem(problems_of(tmp_path, text))
    assert problem == f"{spec_path(tmp_path)}: objective 01: id: duplicate objective id"


MULTI_PROBLEM_SPEC = (
    "project: p\n"
    "colour: red\n"
    "objectives:\n"
    '  - id: "01"\n'
    "    steps:\n"
    '      - id: "01"\n'
    "        outputs: [{name: a, type: 'S3::Bucket'}]\n"
    '      - id: "02"\n'
    "        shade: blue\n"
    "        outputs: [{name: b, type: AWS::S3::Bucket}]\n"
    '      - id: "03"\n'
)


def expected_multi_problems(spec: str) -> list[str]:
    return [
        f"{spec}: colour: unknown key",
        f"{spec}: step 01.01: outputs[0].type: 'S3::Bucket' is not of the form AWS::Service::Resource",
        f"{spec}: step 01.02: shade: unknown key",
        f"{spec}: step 01.03: outputs: Field required",
    ]


def test_several_schema_problems_are_all_listed(tmp_path: Path) -> None:
    problems = problems_of(tmp_path, MULTI_PROBLEM_SPEC)
    for expected in expected_multi_problems(spec_path(tmp_path)):
        assert expected in problems


def test_several_schema_problems_are_listed_without_spurious_ones(tmp_path: Path) -> None:
    problems = problems_of(tmp_path, MULTI_PROBLEM_SPEC)
    assert sorted(problems) == sorted(expected_multi_problems(spec_path(tmp_path)))


def test_nested_error_adds_no_spurious_problem(tmp_path: Path) -> None:
    text = SEED_SPEC.replace('      - id: "02"\n', '      - id: "02"\n        colour: red\n')
    problems = problems_of(tmp_path, text)
    assert problems == [f"{spec_path(tmp_path)}: step 01.02: colour: unknown key"]


def test_several_cross_step_problems_are_all_listed(tmp_path: Path) -> None:
    text = one_step(
        """\
        - id: "01"
          inputs: [later]
          outputs: [{name: a, type: AWS::S3::Bucket}]
        - id: "02"
          inputs: [ghost]
          outputs: [{name: a, type: AWS::S3::Bucket}, {name: later, type: AWS::EC2::VPC}]
        - id: "02"
          outputs: [{name: c, type: AWS::S3::Bucket}]
        """
    )
    problems = problems_of(tmp_path, text)
    spec = spec_path(tmp_path)
    assert problems == [
        f"{spec}: step 01.01: inputs: 'later' is not an output of an earlier step",
        f"{spec}: step 01.02: inputs: 'ghost' is not an output of an earlier step",
        f"{spec}: step 01.02: outputs: duplicate handle name 'a'",
        f"{spec}: step 01.02: id: duplicate step key",
    ]


def test_lab_error_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(BadInput):
        load_lab(tmp_path / "does-not-exist")


# --- step keys ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "key"), [("01.02", "01.02"), ("01_02", "01.02"), ("10_99", "10.99")])
def test_normalize_step_key_accepts(raw: str, key: str) -> None:
    assert normalize_step_key(raw) == key


@pytest.mark.parametrize("raw", ["1.2", "01/02", "../01.02", "01.02.py", "", "01-02", "01.02/..", " 01.02"])
def test_normalize_step_key_rejects(raw: str) -> None:
    with pytest.raises(BadInput) as caught:
        normalize_step_key(raw)
    assert str(caught.value) == f"step key {raw!r} is not of the form NN.NN (e.g. 01.02)"


def test_lab_step_rejects_a_path_like_key(lab: Lab) -> None:
    with pytest.raises(BadInput, match=r"is not of the form NN\.NN"):
        lab.step("../../etc/passwd")


def test_feedback_may_override_a_handle_or_a_check_and_modules_see_it_as_plain_data(tmp_path: Path) -> None:
    spec = SEED_SPEC.replace(
        "          - {name: 01_02_policy, type: AWS::S3::BucketPolicy}\n",
        "          - {name: 01_02_policy, type: AWS::S3::BucketPolicy}\n"
        "        feedback:\n"
        "          hint: Think about who everyone is.\n"
        "          01_02_policy: {issue: '{subject}: not public yet.', hint: Grant s3:GetObject.}\n"
        "          01_01_bucket.exists: Create the bucket first.\n"
        "          route 0.0.0.0/0: A check name with dots is fine.\n",
    )
    lab = load_lab(write_lab(tmp_path, spec))
    assert lab.step("01.02").slice()["feedback"] == {
        "hint": "Think about who everyone is.",
        "01_02_policy": {"issue": "{subject}: not public yet.", "hint": "Grant s3:GetObject."},
        "01_01_bucket.exists": "Create the bucket first.",
        "route 0.0.0.0/0": "A check name with dots is fine.",
    }


@pytest.mark.parametrize(
    ("feedback", "problem"),
    [
        ("{01_02_polcy: Typo.}", "feedback.01_02_polcy: '01_02_polcy' is not a handle of this step"),
        ("{01_02_policy: {}}", "feedback.01_02_policy: give a hint, an issue, or both"),
        ("{01_02_policy: {issue: '{who} is wrong'}}", "unknown placeholder {who}"),
        ("{01_02_policy: {tip: x}}", "unknown key"),
    ],
)
def test_feedback_mistakes_name_the_step_and_the_key(tmp_path: Path, feedback: str, problem: str) -> None:
    spec = SEED_SPEC + f"        feedback: {feedback}\n"
    found = only_real_problem(problems_of(tmp_path, spec))
    assert found.startswith(f"{spec_path(tmp_path)}: step 01.02: ")
    assert problem in found


def test_an_output_of_type_string_is_a_value_the_spec_context_and_answer_accept(tmp_path: Path) -> None:
    from harness.core.contract import ContextInput, Event, check_result, parse_context

    lab = load_lab(
        write_lab(
            tmp_path,
            one_step(
                """\
                - id: "01"
                  outputs: [{name: 01_01_queue_arn, type: string}]
                - id: "02"
                  inputs: [01_01_queue_arn]
                  outputs: [{name: 01_02_url, type: string}]
                """
            ),
        )
    )
    assert lab.handle_types == {"01_01_queue_arn": "string", "01_02_url": "string"}
    arn = "arn:aws:sqs:us-east-1:123456789012:orders"
    context = parse_context(
        {"resolved": [{"name": "01_01_queue_arn", "type": "string", "id": arn}]}, source="ctx", lab=lab
    )
    assert context.resolved[0].id == arn
    entry = {"name": "01_02_url", "type": "string", "id": "https://example.com/", "status": "found"}
    answer = check_result({"validated": [entry], "success": True, "message": "ok"}, lab.steps["01.02"], 1.0)
    assert [h.model_dump() for h in answer.resolved] == [{"name": "01_02_url", "type": "string", "id": entry["id"]}]
    with pytest.raises(ValueError, match="AWS::Service::Resource"):
        Event(type="string", id=arn)  # an event is a resource: a value is never one
    assert ContextInput().events == []


def test_a_string_type_spelt_otherwise_is_named(tmp_path: Path) -> None:
    problem = only_real_problem(
        problems_of(tmp_path, one_step('- id: "01"\n  outputs: [{name: 01_01_arn, type: String}]\n'))
    )
    assert problem.endswith("outputs[0].type: 'String' is not of the form AWS::Service::Resource")
