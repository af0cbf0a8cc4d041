"""The VPC, checking DNS hostnames but not DNS support (marked equivalent in the scenario, on purpose)."""

from harness.kit import ec2
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("02_01_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16"), ec2.dns_hostnames()])
    return step.result()
