"""Create an internet-facing Application Load Balancer in the two public subnets with the load balancer's
security group; an HTTP target group on port 80 in the VPC; and an HTTP listener on port 80 that forwards to
the target group."""

from harness.kit import ec2, elbv2
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        subnet_a = step.input("02_02_public_subnet_a", ec2.SUBNET)
        subnet_b = step.input("02_02_public_subnet_b", ec2.SUBNET)
        alb_sg = step.input("03_01_alb_sg", ec2.SECURITY_GROUP)
        alb = step.find(
            "03_02_alb",
            elbv2.LOAD_BALANCER,
            [
                elbv2.lb_type("application"),
                elbv2.scheme("internet-facing"),
                elbv2.in_subnets_exactly([subnet_a, subnet_b]),
                elbv2.with_security_group(alb_sg),
            ],
        )
        target_group = step.find(
            "03_02_target_group",
            elbv2.TARGET_GROUP,
            [elbv2.protocol("HTTP"), elbv2.port(80), ec2.in_vpc(subnet_a["VpcId"])],
        )
        step.find(
            "03_02_listener",
            elbv2.LISTENER,
            [elbv2.on_load_balancer(alb), elbv2.protocol("HTTP"), elbv2.port(80), elbv2.forwards_to(target_group)],
        )
    return step.result()
