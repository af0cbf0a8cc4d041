"""Step 03.02: an internet-facing ALB in both public subnets, an HTTP:80 target group, a listener forwarding to it."""

from botocore.exceptions import ClientError

ELBV2 = "AWS::ElasticLoadBalancingV2"


async def run(session, context, logger):
    handles = {h["name"]: h["id"] for h in context["resolved"]}
    try:
        elbv2 = session.client("elbv2")
        alb = elbv2.create_load_balancer(
            Name="web-tier-alb",
            Type="application",
            Scheme="internet-facing",
            Subnets=[handles["02_02_public_subnet_a"], handles["02_02_public_subnet_b"]],
            SecurityGroups=[handles["03_01_alb_sg"]],
        )["LoadBalancers"][0]["LoadBalancerArn"]
        vpc_id = session.client("ec2").describe_subnets(SubnetIds=[handles["02_02_public_subnet_a"]])["Subnets"][0][
            "VpcId"
        ]
        target_group = elbv2.create_target_group(
            Name="web-tier-app", Protocol="HTTP", Port=80, VpcId=vpc_id, TargetType="instance"
        )["TargetGroups"][0]["TargetGroupArn"]
        listener = elbv2.create_listener(
            LoadBalancerArn=alb,
            Protocol="HTTP",
            Port=80,
            DefaultActions=[{"Type": "forward", "TargetGroupArn": target_group}],
        )["Listeners"][0]["ListenerArn"]
        return {
            "success": True,
            "resources": [
                {"name": "03_02_alb", "type": f"{ELBV2}::LoadBalancer", "id": alb},
                {"name": "03_02_target_group", "type": f"{ELBV2}::TargetGroup", "id": target_group},
                {"name": "03_02_listener", "type": f"{ELBV2}::Listener", "id": listener},
            ],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
