"""Create an internet gateway and attach it to the VPC; create a route table in the VPC with a route 0.0.0.0/0
to that gateway, and associate it with both public subnets."""

from harness.kit import ec2
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        vpc = step.input("02_01_vpc", ec2.VPC)
        subnet_a = step.input("02_02_public_subnet_a", ec2.SUBNET)
        subnet_b = step.input("02_02_public_subnet_b", ec2.SUBNET)
        igw = step.find("02_03_igw", ec2.INTERNET_GATEWAY, [ec2.attached_to(vpc)])
        step.find(
            "02_03_public_rt",
            ec2.ROUTE_TABLE,
            [
                ec2.in_vpc(vpc),
                ec2.route_to("0.0.0.0/0", igw, key="InternetGatewayId"),
                ec2.associated_with([subnet_a, subnet_b]),
            ],
        )
    return step.result()
