"""Finds the VPC in its events, nothing injected: a VPC that does not exist is the learner's, a fail."""

from harness.kit import ec2
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("01_06_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16")])
    return step.result()
