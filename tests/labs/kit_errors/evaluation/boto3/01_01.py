"""Finds the VPC in its events while every DescribeVpcs answers 403 AccessDenied: an error, never a fail."""

from harness.sandbox.faults import inject_error
from harness.kit import ec2
from harness.kit.step import Step


async def run(session, context, logger):
    # The cached client, as Step uses it; the harness undoes this handler after the evaluation.
    inject_error(
        session.client("ec2"),
        "AccessDenied",
        status=403,
        message="User is not authorized to perform ec2:DescribeVpcs",
        operation="DescribeVpcs",
    )
    step = Step(session, context, logger)
    with step:
        step.find("01_01_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16")])
    return step.result()
