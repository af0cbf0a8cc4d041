"""Finds a VPC that exists, but reading its DNS hostnames attribute (lazily, inside the matching) answers 403
AccessDenied: an error, not a VPC that misses the requirement."""

from harness.sandbox.faults import inject_error
from harness.kit import ec2
from harness.kit.step import Step


async def run(session, context, logger):
    inject_error(
        session.client("ec2"),
        "AccessDenied",
        status=403,
        message="User is not authorized to perform ec2:DescribeVpcAttribute",
        operation="DescribeVpcAttribute",
    )
    step = Step(session, context, logger)
    with step:
        step.find("01_05_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16"), ec2.dns_hostnames()])
    return step.result()
