"""AWS errors met inside the kit, through the real runner: AccessDenied, throttling and server errors are
`error` (kind `aws`), never a verdict on the learner; only a NotFound makes a `fail`."""

from __future__ import annotations

import time
from pathlib import Path

import boto3
import pytest

from harness.core.account import Account, Credentials
from harness.core.contract import LEARNER_SAFE_ERROR, Answer, ContextInput, Event, Handle
from harness.core.lab import Lab, load_lab
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner

LAB = Path(__file__).resolve().parents[1] / "labs" / "kit_errors"
MISSING_VPC = "vpc-0123456789abcdef0"
REGION = "us-east-1"


@pytest.fixture(scope="module")
def kit_errors_lab() -> Lab:
    return load_lab(LAB)


@pytest.fixture
def runner(kit_errors_lab: Lab, pool: WorkerPool) -> Runner:
    return Runner(kit_errors_lab, pool)


def vpc_event(vpc_id: str) -> ContextInput:
    return ContextInput(events=[Event(type="AWS::EC2::VPC", id=vpc_id)])


def assert_aws_error(answer: Answer, *fragments: str) -> None:
    assert answer.status == "error", answer
    assert answer.error is not None and answer.error.kind == "aws", answer.error
    for fragment in fragments:
        assert fragment in answer.error.detail
    assert answer.success is False
    assert answer.message == LEARNER_SAFE_ERROR
    assert answer.failure_context is None and answer.resolved == [] and answer.validated == []


@pytest.fixture(scope="module")
def sandbox(moto_server: str) -> Account:
    """The shared moto server, not reset per test (a reset costs more than these tests): each test only needs
    one VPC that exists and one id that never will."""
    return Account(Credentials("testing", "testing"), REGION, moto_server)


@pytest.fixture(scope="module")
def vpc_id(moto_server: str) -> str:
    ec2 = boto3.client("ec2", region_name=REGION, endpoint_url=moto_server)
    return ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]


def test_access_denied_while_finding_is_an_error(runner: Runner, sandbox, vpc_id: str) -> None:
    answer = runner.evaluate("01.01", vpc_event(vpc_id), sandbox)
    assert_aws_error(answer, "DescribeVpcs: AccessDenied", "not authorized")


def test_throttling_is_an_error(runner: Runner, sandbox, vpc_id: str) -> None:
    """Retries are off in 01.02 (see its docstring): the kit neither retries throttling nor reads it as NotFound."""
    started = time.monotonic()
    answer = runner.evaluate("01.02", vpc_event(vpc_id), sandbox)
    assert_aws_error(answer, "DescribeVpcs: RequestLimitExceeded")
    assert time.monotonic() - started < 5


def test_a_server_error_after_botocores_retries_is_an_error(runner: Runner, sandbox, vpc_id: str) -> None:
    """The harness's cached client retries a 500 (standard mode, short backoff); once retries run out, an error."""
    answer = runner.evaluate("01.03", vpc_event(vpc_id), sandbox)
    assert_aws_error(answer, "DescribeVpcs: InternalError")


def test_an_input_that_cannot_be_described_is_an_error_not_gone(runner: Runner, sandbox) -> None:
    context = ContextInput(resolved=[Handle(name="01_01_vpc", type="AWS::EC2::VPC", id=MISSING_VPC)])
    answer = runner.evaluate("01.04", context, sandbox)
    assert_aws_error(answer, "DescribeVpcs: UnauthorizedOperation")


def test_access_denied_on_a_lazy_attribute_is_an_error(runner: Runner, sandbox, vpc_id: str) -> None:
    answer = runner.evaluate("01.05", vpc_event(vpc_id), sandbox)
    assert_aws_error(answer, "DescribeVpcAttribute: AccessDenied")


def test_a_vpc_that_does_not_exist_is_a_fail(runner: Runner, sandbox) -> None:
    answer = runner.evaluate("01.06", vpc_event(MISSING_VPC), sandbox)  # moto answers InvalidVpcID.NotFound
    assert answer.status == "fail", answer
    assert answer.error is None
    assert answer.failure_context is not None
    assert MISSING_VPC in answer.failure_context.issue or "No VPC was created" in answer.failure_context.issue
    assert [(e.name, e.status) for e in answer.validated] == [("01_06_vpc", "not_found")]
    # moto reads what it just made: the harness tells the kit so, and the NotFound is not asked again for 2 s
    assert [op.operation for op in answer.diagnostics.operations] == ["DescribeVpcs"]


def test_the_same_step_passes_once_the_vpc_exists(runner: Runner, sandbox, vpc_id: str) -> None:
    answer = runner.evaluate("01.06", vpc_event(vpc_id), sandbox)
    assert answer.status == "pass", answer
    assert answer.resolved == [Handle(name="01_06_vpc", type="AWS::EC2::VPC", id=vpc_id)]
