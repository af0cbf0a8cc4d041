"""Finds the VPC in its events while every DescribeVpcs attempt answers 500 InternalError: retried, then an
error, never a fail."""

from harness.sandbox.faults import inject_error
from harness.kit import ec2
from harness.kit.step import Step


async def run(session, context, logger):
    inject_error(
        session.client("ec2"),
        "InternalError",
        status=500,
        message="An internal error has occurred.",
        operation="DescribeVpcs",
    )
    step = Step(session, context, logger)
    with step:
        step.find("01_03_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16")])
    return step.result()
