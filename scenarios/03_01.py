"""Step 03.01: the mistakes learners make with the two security groups (solution/boto3/03_01.py solves it)."""

from harness.authoring.scenarios import mistake

WORLD = "0.0.0.0/0"


def _group(aws, vpc_id, name):
    return aws.client("ec2").create_security_group(GroupName=name, Description=name, VpcId=vpc_id)["GroupId"]


def _allow(aws, group_id, port, *, cidr=None, group=None):
    source = {"IpRanges": [{"CidrIp": cidr}]} if cidr else {"UserIdGroupPairs": [{"GroupId": group}]}
    permission = {"IpProtocol": "tcp", "FromPort": port, "ToPort": port, **source}
    aws.client("ec2").authorize_security_group_ingress(GroupId=group_id, IpPermissions=[permission])


def _groups(aws, handles, *, alb_vpc=None):
    """Both groups, with no rules yet: (load balancer's, app's)."""
    vpc_id = handles["02_01_vpc"]
    return _group(aws, alb_vpc or vpc_id, "web-tier-alb"), _group(aws, vpc_id, "web-tier-app")


@mistake(issue=r"(?i)TCP 22")
def ssh_open_to_the_world_on_the_alb_group(aws, handles):
    alb, app = _groups(aws, handles)
    _allow(aws, alb, 80, cidr=WORLD)
    _allow(aws, alb, 22, cidr=WORLD)
    _allow(aws, app, 80, group=alb)


@mistake(issue=r"(?i)0\.0\.0\.0/0")
def app_group_open_to_the_world(aws, handles):
    alb, app = _groups(aws, handles)
    _allow(aws, alb, 80, cidr=WORLD)
    _allow(aws, app, 80, cidr=WORLD)


@mistake(issue=r"(?i)TCP 8080")
def app_group_on_the_wrong_port(aws, handles):
    alb, app = _groups(aws, handles)
    _allow(aws, alb, 80, cidr=WORLD)
    _allow(aws, app, 8080, group=alb)


# The issue must be about the app's group alone, not the load balancer's (which is right).
@mistake(issue=r"(?i)^(?!.*also allows).*does not allow TCP 80")
def app_group_without_rules(aws, handles):
    alb, _app = _groups(aws, handles)
    _allow(aws, alb, 80, cidr=WORLD)


@mistake(issue=r"(?i)vpc")
def alb_group_in_another_vpc(aws, handles):
    other = aws.client("ec2").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    alb, app = _groups(aws, handles, alb_vpc=other)
    _allow(aws, alb, 80, cidr=WORLD)
    _allow(aws, app, 80, group=alb)


@mistake(expect="pass", events="reversed")
def events_reversed(aws, handles):
    alb, app = _groups(aws, handles)
    _allow(aws, alb, 80, cidr=WORLD)
    _allow(aws, app, 80, group=alb)
