"""Kinds look in the region a handle or event names (or its ARN/URL does), and name resources by short names."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from harness.core.contract import ContextInput, build_context, check_result
from harness.core.lab import load_lab
from harness.kit import ec2
from harness.kit.kinds import Kind, RegionalSession, in_region, region_of, short_name
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


def test_an_event_in_another_region_is_found_there(session: boto3.Session) -> None:
    vpc_id = session.client("ec2", region_name="eu-west-1").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    context, spec = vpc_step_context([{"type": "AWS::EC2::VPC", "id": vpc_id, "region": "eu-west-1"}])
    step = Step(session, context)
    with step:
        vpc = step.find("02_01_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16")])
    assert vpc is not None and vpc["VpcId"] == vpc_id
    answer = check_result(step.result(), spec, 1.0)
    assert answer.resolved[0].model_dump() == {
        "name": "02_01_vpc",
        "type": "AWS::EC2::VPC",
        "id": vpc_id,
        "region": "eu-west-1",
    }


def test_without_the_region_the_same_vpc_is_not_found(session: boto3.Session) -> None:
    vpc_id = session.client("ec2", region_name="eu-west-1").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    context, _ = vpc_step_context([{"type": "AWS::EC2::VPC", "id": vpc_id}])
    step = Step(session, context)
    with step:
        assert not step.find("02_01_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16")])
    assert "no longer exists" in step.result()["failure_context"]["issue"]


def test_input_is_re_described_in_its_region_and_recorded_as_a_check(session: boto3.Session) -> None:
    vpc_id = session.client("ec2", region_name="eu-west-1").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    step_spec = load_lab(REPO_ROOT).step("02.02")
    raw = {"resolved": [{"name": "02_01_vpc", "type": "AWS::EC2::VPC", "id": vpc_id, "region": "eu-west-1"}]}
    step = Step(session, build_context(ContextInput.model_validate(raw), step_spec))
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
