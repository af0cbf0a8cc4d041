"""Step 03.02: the mistakes learners make with the load balancer (solution/boto3/03_02.py solves it)."""

from harness.authoring.scenarios import mistake


def _build(
    aws,
    handles,
    *,
    scheme="internet-facing",
    group="03_01_alb_sg",
    subnets=("a", "b"),
    tg_port=80,
    listener_port=80,
    forward=True,
):
    """The solve, with one thing done wrong when a keyword says so."""
    elbv2 = aws.client("elbv2")
    alb = elbv2.create_load_balancer(
        Name="web-tier-alb",
        Type="application",
        Scheme=scheme,
        Subnets=[handles[f"02_02_public_subnet_{letter}"] for letter in subnets],
        SecurityGroups=[handles[group]],
    )["LoadBalancers"][0]
    target_group = elbv2.create_target_group(
        Name="web-tier-app", Protocol="HTTP", Port=tg_port, VpcId=handles["02_01_vpc"], TargetType="instance"
    )["TargetGroups"][0]
    if forward:
        action = {"Type": "forward", "TargetGroupArn": target_group["TargetGroupArn"]}
    else:
        action = {"Type": "fixed-response", "FixedResponseConfig": {"StatusCode": "404", "ContentType": "text/plain"}}
    elbv2.create_listener(
        LoadBalancerArn=alb["LoadBalancerArn"], Protocol="HTTP", Port=listener_port, DefaultActions=[action]
    )


@mistake(issue=r"(?i)scheme")
def internal_alb(aws, handles):
    _build(aws, handles, scheme="internal")


@mistake(issue=r"(?i)security group")
def alb_with_the_app_group(aws, handles):
    _build(aws, handles, group="03_01_app_sg")


@mistake(issue=r"(?i)subnets")
def alb_in_one_subnet(aws, handles):
    _build(aws, handles, subnets=("a",))


@mistake(issue=r"(?i)forward")
def listener_forwards_nowhere(aws, handles):
    _build(aws, handles, forward=False)


@mistake(issue=r"(?i)port")
def listener_on_the_wrong_port(aws, handles):
    _build(aws, handles, listener_port=8080)


@mistake(issue=r"(?i)port")
def target_group_on_the_wrong_port(aws, handles):
    _build(aws, handles, tg_port=8080)


@mistake(expect="pass", events="reversed")
def events_reversed(aws, handles):
    _build(aws, handles)
