"""A VPC 10.20.0.0/16 with subnets 10.20.1.0/24 (zone a) and 10.20.2.0/24 (zone b) on one route table (explicitly
or as the VPC's main table), and a gateway VPC endpoint for S3 that routes for that table."""

from harness.kit import ec2
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        vpc = step.find("01_02_vpc", ec2.VPC, [ec2.cidr("10.20.0.0/16")])
        subnet_a = step.find("01_02_subnet_a", ec2.SUBNET, [ec2.in_vpc(vpc), ec2.cidr("10.20.1.0/24"), ec2.zone("a")])
        subnet_b = step.find("01_02_subnet_b", ec2.SUBNET, [ec2.in_vpc(vpc), ec2.cidr("10.20.2.0/24"), ec2.zone("b")])
        table = step.find("01_02_route_table", ec2.ROUTE_TABLE, [
            ec2.in_vpc(vpc),
            ec2.associated_with([subnet_a, subnet_b]),
        ])  # fmt: skip
        step.find("01_02_endpoint", ec2.VPC_ENDPOINT, [
            ec2.in_vpc(vpc),
            ec2.endpoint_type("Gateway"),
            ec2.endpoint_service("s3"),
            ec2.endpoint_in_route_tables([table]),
        ])  # fmt: skip
    return step.result()
