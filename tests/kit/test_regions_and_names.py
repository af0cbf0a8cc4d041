"""Kinds look in the region a handle or event names (or its ARN/URL does), and name resources by short names."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from harness.core.contract import ContextInput, build_context, check_result
from harness.core.lab import LabError, load_lab
from harness.kit import ec2, iam, kms, logs, s3
from harness.kit.kinds import Kind, RegionalSession, in_region, outside, region_of, short_name
from harness.kit.step import Step

pytestmark = pytest.mark.moto

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def session() -> Iterator[boto3.Session]:
    with mock_aws():
        yield boto3.Session(region_name="us-east-1")


def vpc_step_context(events: list[dict], resolved: list[dict] | None = None) -> tuple[dict, object]:
    step = load_lab(REPO_ROOT).step("02.01")
    context = build_context(ContextInput.model_validate({"events": events, "resolved": resolved or []}), step)
    return context, step


def test_an_event_in_another_region_is_not_the_labs(session: boto3.Session) -> None:
    """The platform gives the learner one region: a VPC built in eu-west-1 for a lab in us-east-1 is a mistake,
    named as such (not "no VPC was created")."""
    vpc_id = session.client("ec2", region_name="eu-west-1").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    context, spec = vpc_step_context([{"type": "AWS::EC2::VPC", "id": vpc_id, "region": "eu-west-1"}])
    step = Step(session, context)
    with step:
        assert not step.find("02_01_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16")])
    result = step.result()
    assert (
        result["failure_context"]["issue"]
        == f"The VPC {vpc_id} is in eu-west-1; this lab is in us-east-1 (a resource in another region does not count)."
    )
    assert "us-east-1" in result["failure_context"]["hint_context"]
    assert result["checks"][-1] == {
        "handle": "02_01_vpc",
        "check": "region",
        "ok": False,
        "expected": "us-east-1",
        "actual": "eu-west-1",
    }
    assert check_result(result, spec, 1.0).status == "fail"


@pytest.mark.parametrize("allowed", [["eu-west-1"], ["*"]])
def test_an_event_in_a_region_the_spec_allows_is_found_there(session: boto3.Session, allowed: list[str]) -> None:
    vpc_id = session.client("ec2", region_name="eu-west-1").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    context, spec = vpc_step_context([{"type": "AWS::EC2::VPC", "id": vpc_id, "region": "eu-west-1"}])
    context["spec"]["regions"] = allowed
    step = Step(session, context)
    with step:
        vpc = step.find("02_01_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16")])
    assert vpc and vpc["VpcId"] == vpc_id
    answer = check_result(step.result(), spec, 1.0)
    assert answer.resolved[0].model_dump() == {
        "name": "02_01_vpc",
        "type": "AWS::EC2::VPC",
        "id": vpc_id,
        "region": "eu-west-1",
    }


def test_a_right_candidate_in_the_labs_region_is_chosen_beside_one_elsewhere(session: boto3.Session) -> None:
    away = session.client("ec2", region_name="eu-west-1").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    home = session.client("ec2").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    events = [{"type": "AWS::EC2::VPC", "id": away, "region": "eu-west-1"}, {"type": "AWS::EC2::VPC", "id": home}]
    context, _ = vpc_step_context(events)
    step = Step(session, context)
    with step:
        assert step.find("02_01_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16")])["VpcId"] == home
    assert step.result()["success"]


def test_an_input_from_another_region_stops_the_step(session: boto3.Session) -> None:
    vpc_id = session.client("ec2", region_name="eu-west-1").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    step_spec = load_lab(REPO_ROOT).step("02.02")
    raw = {"resolved": [{"name": "02_01_vpc", "type": "AWS::EC2::VPC", "id": vpc_id, "region": "eu-west-1"}]}
    step = Step(session, build_context(ContextInput.model_validate(raw), step_spec))
    with step:
        step.input("02_01_vpc", ec2.VPC)
        raise AssertionError("the step goes on after an input from another region")
    assert (
        step.result()["failure_context"]["issue"]
        == f"The VPC {vpc_id} is in eu-west-1; this lab is in us-east-1 (a resource in another region does not count)."
    )


def test_a_regionless_kind_is_never_elsewhere() -> None:
    assert outside(iam.ROLE, "api", "eu-west-1", "us-east-1", ()) is None
    assert outside(s3.BUCKET, "b", "eu-west-1", "us-east-1", ()) == "eu-west-1"  # a bucket has a region
    assert outside(ec2.VPC, "arn:aws:sns:eu-west-1:123456789012:t", None, "us-east-1", ()) == "eu-west-1"
    assert outside(ec2.VPC, "vpc-1", None, "us-east-1", ()) is None


def test_without_the_region_the_same_vpc_is_not_found(session: boto3.Session) -> None:
    vpc_id = session.client("ec2", region_name="eu-west-1").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    context, _ = vpc_step_context([{"type": "AWS::EC2::VPC", "id": vpc_id}])
    step = Step(session, context)
    with step:
        assert not step.find("02_01_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16")])
    assert step.result()["failure_context"]["issue"] == f"We could not find the VPC {vpc_id} recorded for this step."


def test_input_is_re_described_in_its_region_and_recorded_as_a_check(session: boto3.Session) -> None:
    vpc_id = session.client("ec2", region_name="eu-west-1").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    step_spec = load_lab(REPO_ROOT).step("02.02")
    raw = {"resolved": [{"name": "02_01_vpc", "type": "AWS::EC2::VPC", "id": vpc_id, "region": "eu-west-1"}]}
    context = build_context(ContextInput.model_validate(raw), step_spec)
    context["spec"]["regions"] = ["eu-west-1"]
    step = Step(session, context)
    with step:
        assert step.input("02_01_vpc", ec2.VPC)["VpcId"] == vpc_id
    assert step.result()["checks"][0] == {
        "handle": "02_01_vpc",
        "check": "exists",
        "ok": True,
        "expected": True,
        "actual": True,
    }
    assert step.region_of("02_01_vpc") == "eu-west-1"


def test_regions_and_short_names_of_arns_and_urls() -> None:
    assert region_of("arn:aws:sns:eu-west-1:123456789012:alerts") == "eu-west-1"
    assert region_of("https://sqs.ap-southeast-2.amazonaws.com/123456789012/q") == "ap-southeast-2"
    assert region_of("arn:aws:iam::123456789012:role/api") is None
    assert region_of("vpc-0abc") is None
    assert short_name("arn:aws:iam::123456789012:role/service/api") == "api"
    assert short_name("arn:aws:lambda:us-east-1:123456789012:function:api") == "api"
    assert short_name("https://sqs.us-east-1.amazonaws.com/123456789012/orders") == "orders"
    assert short_name("vpc-0abc") == "vpc-0abc"
    queue = Kind("AWS::SQS::Queue", "SQS queue", lambda s, i: None, naming="{noun} {name}")
    assert queue.describe("https://sqs.us-east-1.amazonaws.com/123456789012/orders") == "SQS queue orders"
    assert queue.service_name == "sqs"


def test_a_kind_fetches_in_the_region_its_arn_names() -> None:
    seen: list[str] = []
    topic = Kind("AWS::SNS::Topic", "SNS topic", lambda s, i: seen.append(s.region_name) or {"TopicArn": i})
    base = boto3.Session(region_name="us-east-1")
    topic.fetch_in(base, "arn:aws:sns:eu-west-1:123456789012:alerts")
    topic.fetch_in(base, "arn:aws:sns:us-east-1:123456789012:alerts")
    topic.fetch_in(base, "arn:aws:sns:us-east-1:123456789012:alerts", "ap-south-1")
    assert seen == ["eu-west-1", "us-east-1", "ap-south-1"]
    assert in_region(base, "us-east-1") is base
    assert isinstance(in_region(base, "eu-west-1"), RegionalSession)


KEY_SPEC = """\
project: keys-in-a-region
{regions}objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs:
          - {{name: 01_01_key, type: AWS::KMS::Key}}
          - {{name: 01_01_alias, type: AWS::KMS::Alias}}
          - {{name: 01_01_logs, type: AWS::Logs::LogGroup}}
"""


def key_lab_step(tmp_path: Path, regions: str = ""):
    (tmp_path / "specs").mkdir(exist_ok=True)
    (tmp_path / "specs" / "lab.yaml").write_text(KEY_SPEC.format(regions=regions), encoding="utf-8")
    return load_lab(tmp_path).step("01.01")


@pytest.mark.parametrize("allowed", ["", "regions: [us-west-2]\n"], ids=["lab-region-only", "spec-allows-it"])
def test_a_key_alias_and_log_group_in_us_west_2_are_judged_by_the_labs_region(
    session: boto3.Session, tmp_path: Path, allowed: str
) -> None:
    kms_west = session.client("kms", region_name="us-west-2")
    key = kms_west.create_key()["KeyMetadata"]["KeyId"]
    kms_west.create_alias(AliasName="alias/orders", TargetKeyId=key)
    session.client("logs", region_name="us-west-2").create_log_group(logGroupName="/aws/lambda/orders")
    spec = key_lab_step(tmp_path, allowed)
    west = {"region": "us-west-2"}
    raw = {
        "events": [
            {"type": "AWS::KMS::Key", "id": key, **west},
            {"type": "AWS::KMS::Alias", "id": "alias/orders", **west},
            {"type": "AWS::Logs::LogGroup", "id": "/aws/lambda/orders", **west},
        ]
    }
    step = Step(session, build_context(ContextInput.model_validate(raw), spec))
    with step:
        found = step.find("01_01_key", kms.KEY, [kms.customer_managed()])
        step.find("01_01_alias", kms.ALIAS, [kms.points_to(found)])
        step.find("01_01_logs", logs.LOG_GROUP, [])
    result = step.result()
    if allowed:
        assert result["success"], result.get("failure_context")
    else:
        assert result["failure_context"]["issue"] == (
            f"The KMS key {key} is in us-west-2; this lab is in us-east-1 (a resource in another region does not "
            "count)."
        )
        assert [c["check"] for c in result["checks"] if not c["ok"]] == ["region", "region", "region"]


def test_the_spec_names_regions_or_says_which_is_wrong(tmp_path: Path) -> None:
    assert key_lab_step(tmp_path, "regions: ['*']\n").slice()["regions"] == ["*"]
    assert "regions" not in key_lab_step(tmp_path).slice()
    with pytest.raises(LabError, match="not a region name"):
        key_lab_step(tmp_path, "regions: [US-West]\n")
