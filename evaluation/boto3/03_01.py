"""In the VPC, create a security group for the load balancer that allows TCP 80 from 0.0.0.0/0 and nothing else
inbound, and one for the app that allows TCP 80 only from the load balancer's group."""

from harness.kit import ec2, net
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        vpc = step.input("02_01_vpc", ec2.VPC)
        alb_sg = step.find(
            "03_01_alb_sg",
            ec2.SECURITY_GROUP,
            [ec2.in_vpc(vpc), ec2.ingress_exactly(net.tcp(80, net.WORLD_V4))],
        )
        step.find("03_01_app_sg", ec2.SECURITY_GROUP, [ec2.in_vpc(vpc), ec2.ingress_exactly(net.tcp(80, alb_sg))])
    return step.result()
