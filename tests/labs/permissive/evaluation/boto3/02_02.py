"""Two public subnets, without the zone checks: the planted permissive evaluator mutate must catch."""

from harness.kit import ec2
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        vpc = step.input("02_01_vpc", ec2.VPC)
        step.find_all(
            ec2.SUBNET,
            {
                "02_02_public_subnet_a": [ec2.in_vpc(vpc), ec2.cidr("10.0.1.0/24"), ec2.maps_public_ip(True)],
                "02_02_public_subnet_b": [ec2.in_vpc(vpc), ec2.cidr("10.0.2.0/24"), ec2.maps_public_ip(True)],
            },
        )
    return step.result()
