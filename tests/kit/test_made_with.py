"""What AWS makes along with another resource is a candidate of the step that made that one (`Kind.made_with`): a
VPC's main route table, which subnets use with no association of their own. And a bucket's own policy, the
bucket a bucket policy is on, a public zone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.core.lab import StepSpec, load_lab
from harness.kit import ec2, route53, s3
from harness.kit.step import Step
from tests.kit.conftest import described, held_to_contract, make_context, miss, passes, unique

SPEC = """\
project: made-with
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs:
          - {name: 01_01_vpc, type: AWS::EC2::VPC}
          - {name: 01_01_subnet, type: AWS::EC2::Subnet}
          - {name: 01_01_route_table, type: AWS::EC2::RouteTable}
"""


@pytest.fixture(scope="module")
def network_step(tmp_path_factory: pytest.TempPathFactory) -> StepSpec:
    root: Path = tmp_path_factory.mktemp("made-with")
    (root / "specs").mkdir()
    (root / "specs" / "lab.yaml").write_text(SPEC, encoding="utf-8")
    return load_lab(root).steps["01.01"]


def network(session: Any, *, explicit: bool) -> tuple[str, str, list[tuple[str, str]]]:
    """A VPC and a subnet on its main route table, or on a table of its own: (subnet, its table, the events)."""
    ec2_client = session.client("ec2")
    vpc = ec2_client.create_vpc(CidrBlock="10.30.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2_client.create_subnet(VpcId=vpc, CidrBlock="10.30.1.0/24")["Subnet"]["SubnetId"]
    events = [("AWS::EC2::VPC", vpc), ("AWS::EC2::Subnet", subnet)]
    if explicit:
        table = ec2_client.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
        ec2_client.associate_route_table(RouteTableId=table, SubnetId=subnet)
        return subnet, table, [*events, ("AWS::EC2::RouteTable", table)]
    filters = [{"Name": "vpc-id", "Values": [vpc]}, {"Name": "association.main", "Values": ["true"]}]
    return subnet, ec2_client.describe_route_tables(Filters=filters)["RouteTables"][0]["RouteTableId"], events


def judge(session: Any, spec: StepSpec, events: list[tuple[str, str]]) -> dict[str, Any]:
    step = Step(session, make_context(spec, events=events))
    with step:
        vpc = step.find("01_01_vpc", ec2.VPC, [ec2.cidr("10.30.0.0/16")])
        subnet = step.find("01_01_subnet", ec2.SUBNET, [ec2.in_vpc(vpc)])
        step.find("01_01_route_table", ec2.ROUTE_TABLE, [ec2.in_vpc(vpc), ec2.associated_with([subnet])])
    return step.result()


@pytest.mark.parametrize("explicit", [False, True], ids=["main-table", "table-of-its-own"])
def test_the_route_table_a_subnet_uses_is_found_explicit_or_main(aws_session, network_step, explicit: bool) -> None:
    _, table, events = network(aws_session, explicit=explicit)
    result = judge(aws_session, network_step, events)
    assert result["success"], result.get("failure_context")
    assert held_to_contract(result, network_step).status == "pass"
    assert {e["name"]: e["id"] for e in result["validated"]}["01_01_route_table"] == table


def test_a_main_table_is_no_candidate_of_a_step_that_made_no_vpc(aws_session, network_step) -> None:
    _, _, events = network(aws_session, explicit=False)
    result = judge(aws_session, network_step, [e for e in events if e[0] != "AWS::EC2::VPC"])
    assert not result["success"]
    assert {e["name"]: e["status"] for e in result["validated"]}["01_01_route_table"] == "not_found"


def bucket(session: Any, policy: dict[str, Any] | None = None) -> str:
    name = unique("audit-logs")
    session.client("s3").create_bucket(Bucket=name)
    if policy is not None:
        session.client("s3").put_bucket_policy(Bucket=name, Policy=json.dumps(policy))
    return name


def test_a_bucket_reads_its_policy_so_policy_requirements_judge_the_bucket(aws_session) -> None:
    name = bucket(aws_session)
    write = {"Effect": "Allow", "Principal": {"Service": "cloudtrail.amazonaws.com"}, "Action": "s3:GetBucketAcl",
             "Resource": f"arn:aws:s3:::{name}"}  # fmt: skip
    put = {**write, "Action": "s3:PutObject", "Resource": f"arn:aws:s3:::{name}/AWSLogs/123456789012/*",
           "Condition": {"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control"}}}  # fmt: skip
    assert described(s3.BUCKET, aws_session, name)["Policy"] is None
    assert miss(s3.cloudtrail_may_write(account="123456789012"), s3.BUCKET, name,
                described(s3.BUCKET, aws_session, name)).endswith("it has no resource policy, so "
                "cloudtrail.amazonaws.com may not s3:GetBucketAcl.")  # fmt: skip
    aws_session.client("s3").put_bucket_policy(Bucket=name, Policy=json.dumps({"Statement": [write, put]}))
    assert passes(s3.cloudtrail_may_write(account="123456789012"), described(s3.BUCKET, aws_session, name))


def test_a_bucket_policy_is_on_its_bucket(aws_session) -> None:
    site, logs = bucket(aws_session), bucket(aws_session)
    aws_session.client("s3").put_bucket_policy(Bucket=logs, Policy=json.dumps({"Statement": []}))
    policy = described(s3.BUCKET_POLICY, aws_session, logs)
    assert passes(s3.on_bucket(logs), policy) and passes(s3.on_bucket(f"arn:aws:s3:::{logs}"), policy)
    assert miss(s3.on_bucket(site), s3.BUCKET_POLICY, logs, policy) == (
        f"Bucket policy on {logs}: S3 bucket should be {site}, but is {logs}."
    )


def test_a_public_zone_is_not_a_private_one(aws_session) -> None:
    client = aws_session.client("route53")
    public = client.create_hosted_zone(Name="pub.example.com", CallerReference=unique("zone"))["HostedZone"]["Id"]
    vpc = aws_session.client("ec2").create_vpc(CidrBlock="10.31.0.0/16")["Vpc"]["VpcId"]
    private = client.create_hosted_zone(
        Name="priv.example.com", CallerReference=unique("zone"), VPC={"VPCRegion": "us-east-1", "VPCId": vpc},
        HostedZoneConfig={"PrivateZone": True, "Comment": ""},
    )["HostedZone"]["Id"]  # fmt: skip
    assert passes(route53.public(), described(route53.HOSTED_ZONE, aws_session, public))
    zone = described(route53.HOSTED_ZONE, aws_session, private)
    assert miss(route53.public(), route53.HOSTED_ZONE, private, zone).endswith("zone should be public, but is private.")
