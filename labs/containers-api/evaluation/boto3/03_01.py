"""In one VPC, create the API's security group, which admits no inbound traffic, and the database's security group,
which admits only PostgreSQL (TCP 5432) from the API's group."""

from harness.kit import ec2, net
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        app = step.find("03_01_app_group", ec2.SECURITY_GROUP, [ec2.ingress_exactly()])
        step.find("03_01_db_group", ec2.SECURITY_GROUP, [ec2.in_vpc(app), ec2.ingress_exactly(net.tcp(5432, app))])
    return step.result()
