"""What a learner reads: the sample labs' own step modules on moto, each answer's `message` and `failure_context`.

A learner never saw a handle name (`01_02_policy`: the spec's and the platform's, kept in `hint_context`); an event
naming a resource AWS does not know says we could not find it, never that it was deleted; the tally counts this
step's own checks (an earlier step's resource re-verified is no progress in this one); a resource with several
broken requirements lists them (`LISTED`), its `issue` still one sentence.
"""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from harness.core.contract import Answer, ContextInput, build_context, check_result
from harness.core.lab import load_lab
from harness.kit import kinds, tally
from harness.kit.require import attribute
from harness.kit.step import LISTED, Step
from tests.kit.conftest import unique

pytestmark = pytest.mark.moto

REPO = Path(__file__).resolve().parents[2]
WEB_TIER = load_lab(REPO)
SERVERLESS = load_lab(REPO / "labs" / "serverless-api")


def evaluate(lab: Any, key: str, session: Any, resolved: list[dict], events: list[dict]) -> Answer:
    """The lab's own module for step `key`, run on `session` and held to the contract, as the runner does."""
    step = lab.step(key)
    spec = importlib.util.spec_from_file_location(f"learner_words_{step.stem}", step.module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    context = build_context(ContextInput.model_validate({"resolved": resolved, "events": events}), step)
    return check_result(asyncio.run(module.run(session, context, None)), step, 1.0)


def test_a_step_not_built_names_what_it_asks_for_not_its_handle(aws_session: Any) -> None:
    bucket = unique("site")
    aws_session.client("s3").create_bucket(Bucket=bucket)
    resolved = [{"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": bucket}]
    answer = evaluate(WEB_TIER, "01.02", aws_session, resolved, [])
    assert answer.status == "fail"
    assert answer.failure_context is not None
    assert answer.failure_context.issue == "No bucket policy was created in this step."
    # the earlier step's bucket, re-verified, is no progress in this one: the message and `progress` agree
    assert answer.message == "0 of 1 check passed. No bucket policy was created in this step."
    assert answer.progress is not None and (answer.progress.passed, answer.progress.total) == (0, 1)
    assert [(c.handle, c.ok) for c in answer.checks] == [("01_01_bucket", True), ("01_02_policy", False)]
    assert "01_02" not in answer.message and "01_02" not in answer.failure_context.issue
    assert "01_02_policy" in answer.failure_context.hint_context  # the platform's handle, for the platform


def test_an_event_naming_a_bucket_that_never_existed_is_not_called_deleted(aws_session: Any) -> None:
    answer = evaluate(WEB_TIER, "01.01", aws_session, [], [{"type": "AWS::S3::Bucket", "id": "nope-bucket"}])
    assert answer.status == "fail" and answer.failure_context is not None
    assert answer.failure_context.issue == "We could not find the S3 bucket nope-bucket recorded for this step."
    assert "no longer" not in answer.message and "deleted" not in answer.message


def test_an_earlier_steps_resource_gone_says_so(aws_session: Any) -> None:
    resolved = [{"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": unique("gone")}]
    answer = evaluate(WEB_TIER, "01.02", aws_session, resolved, [])
    assert answer.failure_context is not None
    # validated by an earlier step, so it did exist: "no longer" is what we know; the only check is the input's
    assert "from an earlier step no longer exists" in answer.failure_context.issue
    assert answer.message.startswith("0 of 1 check passed. The S3 bucket gone-")
    assert answer.progress is not None and (answer.progress.passed, answer.progress.total) == (0, 1)


def test_a_table_with_two_faults_lists_both(aws_session: Any) -> None:
    table = unique("items")
    aws_session.client("dynamodb").create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
    )
    answer = evaluate(SERVERLESS, "01.01", aws_session, [], [{"type": "AWS::DynamoDB::Table", "id": table}])
    assert answer.failure_context is not None
    issue = f"DynamoDB table {table}: primary key should be hash pk (S), but is hash id (S)."
    also = "Also: billing mode should be PAY_PER_REQUEST, but is PROVISIONED."
    assert answer.failure_context.issue == issue  # one sentence, the platform's to show
    assert answer.message == f"0 of 2 checks passed. {issue} {also}"
    assert answer.failure_context.hint_context.endswith(f" {also}")


def test_two_subnets_asked_one_made_counts_them_without_handles(aws_session: Any) -> None:
    ec2 = aws_session.client("ec2")
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.2.0/24", AvailabilityZone="us-east-1b")["Subnet"]
    ec2.modify_subnet_attribute(SubnetId=subnet["SubnetId"], MapPublicIpOnLaunch={"Value": True})
    resolved = [{"name": "02_01_vpc", "type": "AWS::EC2::VPC", "id": vpc}]
    events = [{"type": "AWS::EC2::Subnet", "id": subnet["SubnetId"]}]
    answer = evaluate(WEB_TIER, "02.02", aws_session, resolved, events)
    assert answer.failure_context is not None
    assert answer.failure_context.issue == (
        f"This step asks for 2 subnets, and only 1 was created in it (subnet {subnet['SubnetId']})."
    )
    assert "02_02" not in answer.message and "02_02_public_subnet_a" in answer.failure_context.hint_context


# --- the same rules on the kit's own kinds, without AWS --------------------------------------------------------


def _kind(resources: dict[str, dict]) -> kinds.Kind:
    return kinds.Kind("AWS::EC2::Instance", "widget", lambda _session, rid: resources.get(rid))


def _spec(*outputs: dict[str, Any], inputs: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"step": "01.02", "inputs": list(inputs), "outputs": list(outputs)}


def test_more_broken_requirements_than_listed_are_counted() -> None:
    widgets = _kind({"w-1": {"A": 0, "B": 0, "C": 0, "D": 0}})
    wanted = [attribute(check, check.upper(), 1) for check in ("a", "b", "c", "d")]
    spec = _spec({"name": "01_02_w", "type": "AWS::EC2::Instance"})
    step = Step(None, {"spec": spec, "resolved": [], "events": [{"type": "AWS::EC2::Instance", "id": "w-1"}]})
    with step:
        step.find("01_02_w", widgets, wanted)
    result = step.result()
    assert LISTED == 3
    assert result["failure_context"]["issue"] == "Widget w-1: a should be 1, but is 0."
    assert result["message"] == (
        "0 of 4 checks passed. Widget w-1: a should be 1, but is 0. "
        "Also: b should be 1, but is 0; c should be 1, but is 0; and 1 more."
    )


def test_the_authors_issue_words_a_listed_miss_too() -> None:
    widgets = _kind({"w-1": {"A": 0, "B": 0}})
    spec = _spec({"name": "01_02_w", "type": "AWS::EC2::Instance"})
    spec["feedback"] = {"b": {"issue": "{subject} needs b set to {expected}."}}
    step = Step(None, {"spec": spec, "resolved": [], "events": [{"type": "AWS::EC2::Instance", "id": "w-1"}]})
    with step:
        step.find("01_02_w", widgets, [attribute("a", "A", 1), attribute("b", "B", 1)])
    assert step.result()["message"].endswith("Also: Widget w-1 needs b set to 1.")


def test_an_output_is_named_by_its_description_else_its_place_among_its_kind() -> None:
    widgets = _kind({})
    spec = _spec(
        {"name": "01_02_front", "type": "AWS::EC2::Instance", "description": "the web server"},
        {"name": "01_02_a", "type": "AWS::EC2::Volume"},
        {"name": "01_02_b", "type": "AWS::EC2::Volume"},
    )
    step = Step(None, {"spec": spec, "resolved": [], "events": []})
    with step:
        step.find("01_02_front", widgets, [])
    assert step.result()["failure_context"]["issue"] == "No widget was created in this step (the web server)."
    gadgets = kinds.Kind("AWS::EC2::Volume", "gadget", lambda _session, rid: None)
    other = Step(None, {"spec": spec, "resolved": [], "events": []})
    with other:
        other.find_all(gadgets, {"01_02_a": [], "01_02_b": []})
    assert other.result()["failure_context"]["issue"] == "No gadget was created in this step, which asks for 2."
    assert other.output("01_02_b").label == "the second gadget this step asks for"


def test_a_requirement_reading_an_output_without_a_resource_names_it_as_the_learner_knows_it() -> None:
    widgets = _kind({"w-1": {"Peer": "x"}})
    spec = _spec({"name": "01_02_w", "type": "AWS::EC2::Instance"}, {"name": "01_02_peer", "type": "AWS::EC2::Volume"})
    step = Step(None, {"spec": spec, "resolved": [], "events": [{"type": "AWS::EC2::Instance", "id": "w-1"}]})
    peer = step.output("01_02_peer")
    with step:
        step.find("01_02_w", widgets, [attribute("peer", "Peer", "x"), _reads(peer)])
        step.find("01_02_peer", kinds.Kind("AWS::EC2::Volume", "gadget", lambda _s, _r: None), [])
    checks = {c["check"]: c for c in step.result()["checks"]}
    assert checks["peer id"]["actual"] == "nothing was found for the gadget this step asks for"


def _reads(output: Any) -> Any:
    from harness.kit.require import require

    return require("peer id", "the peer's", lambda resource: resource["Peer"] == output["Id"])


def test_the_tally_counts_the_steps_own_checks_unless_there_are_none() -> None:
    checks = [{"handle": "01_01_in", "ok": True}, {"handle": "01_02_out", "ok": False}, {"handle": None, "ok": True}]
    own = tally.tallied(checks, lambda c: c["handle"], {"01_01_in"})
    assert [c["handle"] for c in own] == ["01_02_out", None]
    inputs_only = checks[:1]
    assert tally.tallied(inputs_only, lambda c: c["handle"], {"01_01_in"}) == inputs_only
