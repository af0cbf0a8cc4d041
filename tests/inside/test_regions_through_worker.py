"""A region on an event or handle reaches the kit through the real Runner, worker and gateway on a moto server."""

from __future__ import annotations

import shutil
from pathlib import Path

import boto3
import pytest

from harness.core.account import Account
from harness.core.contract import ContextInput, Event, Handle
from harness.core.lab import load_lab
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner

REPO = Path(__file__).parents[2]


@pytest.fixture
def vpc_in_ireland(moto_url: str) -> str:
    ec2 = boto3.client("ec2", endpoint_url=moto_url, region_name="eu-west-1")
    vpc_id = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    ec2.modify_vpc_attribute(VpcId=vpc_id, EnableDnsHostnames={"Value": True})
    return vpc_id


def test_an_event_in_another_region_is_not_the_labs(vpc_in_ireland: str, pool: WorkerPool, sandbox: Account) -> None:
    answer = Runner(load_lab(REPO), pool).evaluate(
        "02.01", ContextInput(events=[Event(type="AWS::EC2::VPC", id=vpc_in_ireland, region="eu-west-1")]), sandbox
    )
    assert answer.status == "fail"
    assert answer.failure_context is not None
    assert answer.failure_context.issue.startswith(f"The VPC {vpc_in_ireland} is in eu-west-1; this lab is in ")


def test_an_event_in_a_region_the_spec_allows_passes_and_resolves_with_it(
    vpc_in_ireland: str, pool: WorkerPool, sandbox: Account, tmp_path: Path
) -> None:
    for part in ("specs", "evaluation"):
        shutil.copytree(REPO / part, tmp_path / part)
    spec = tmp_path / "specs" / "web-tier.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("objectives:", "regions: [eu-west-1]\nobjectives:", 1))
    runner = Runner(load_lab(tmp_path), pool)
    found = runner.evaluate(
        "02.01", ContextInput(events=[Event(type="AWS::EC2::VPC", id=vpc_in_ireland, region="eu-west-1")]), sandbox
    )
    assert found.status == "pass", found.message
    assert found.resolved == [Handle(name="02_01_vpc", type="AWS::EC2::VPC", id=vpc_in_ireland, region="eu-west-1")]
    later = runner.evaluate("02.02", ContextInput(resolved=found.resolved), sandbox)
    assert "no longer exists" not in later.message  # the VPC is re-verified in eu-west-1, where it is


def test_the_same_event_without_its_region_is_looked_for_in_the_sessions(
    vpc_in_ireland: str, pool: WorkerPool, sandbox: Account
) -> None:
    answer = Runner(load_lab(REPO), pool).evaluate(
        "02.01", ContextInput(events=[Event(type="AWS::EC2::VPC", id=vpc_in_ireland)]), sandbox
    )
    assert answer.status == "fail"
    assert answer.failure_context is not None
    # looked for in the session's region, where AWS does not know it: not found, never "deleted"
    assert answer.failure_context.issue == f"We could not find the VPC {vpc_in_ireland} recorded for this step."
