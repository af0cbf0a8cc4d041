"""Re-verifies its input VPC while DescribeVpcs answers 403 UnauthorizedOperation: an error, not "no longer
exists"."""

from harness.sandbox.faults import inject_error
from harness.kit import ec2
from harness.kit.step import Step


async def run(session, context, logger):
    inject_error(
        session.client("ec2"),
        "UnauthorizedOperation",
        status=403,
        message="You are not authorized to perform this operation.",
        operation="DescribeVpcs",
    )
    step = Step(session, context, logger)
    with step:
        vpc = step.input("01_01_vpc", ec2.VPC)
        step.find("01_04_subnet", ec2.SUBNET, [ec2.in_vpc(vpc)])
    return step.result()
