"""Create a VPC with CIDR 10.0.0.0/16 and enable both DNS support and DNS hostnames."""

from harness.kit import ec2
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("02_01_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16"), ec2.dns_support(), ec2.dns_hostnames()])
    return step.result()
