"""Held-out mistakes of web-tier step 03.01, with decoys (see tests/heldout/README.md)."""

from harness.authoring.scenarios import mistake


def _heldout_group(aws, handles, name):
    ec2 = aws.client("ec2")
    return ec2.create_security_group(GroupName=name, Description=name, VpcId=handles["02_01_vpc"])["GroupId"]


def _heldout_allow(aws, group, port, *, cidr=None, source=None):
    pair = {"IpRanges": [{"CidrIp": cidr}]} if cidr else {"UserIdGroupPairs": [{"GroupId": source}]}
    aws.client("ec2").authorize_security_group_ingress(
        GroupId=group, IpPermissions=[{"IpProtocol": "tcp", "FromPort": port, "ToPort": port, **pair}]
    )


@mistake(issue=r"(?i)TCP 8080")
def heldout_app_on_8080_after_a_bastion(aws, handles):
    bastion = _heldout_group(aws, handles, "heldout-bastion")  # older, and not part of the step
    _heldout_allow(aws, bastion, 22, cidr="203.0.113.0/24")
    alb = _heldout_group(aws, handles, "heldout-alb")
    _heldout_allow(aws, alb, 80, cidr="0.0.0.0/0")
    app = _heldout_group(aws, handles, "heldout-app")
    _heldout_allow(aws, app, 8080, source=alb)


@mistake(issue=r"(?i)TCP 443 from 0\.0\.0\.0/0")
def heldout_alb_also_on_443_beside_a_scratch_group(aws, handles):
    scratch = _heldout_group(aws, handles, "heldout-scratch")
    _heldout_allow(aws, scratch, 80, cidr="10.0.0.0/16")
    alb = _heldout_group(aws, handles, "heldout-alb")
    _heldout_allow(aws, alb, 80, cidr="0.0.0.0/0")
    _heldout_allow(aws, alb, 443, cidr="0.0.0.0/0")
    app = _heldout_group(aws, handles, "heldout-app")
    _heldout_allow(aws, app, 80, source=alb)


@mistake(issue=r"(?i)TCP 80 from 0\.0\.0\.0/0")
def heldout_app_open_to_the_world_after_an_old_group(aws, handles):
    old = _heldout_group(aws, handles, "heldout-old-web")
    _heldout_allow(aws, old, 80, cidr="0.0.0.0/0")
    alb = _heldout_group(aws, handles, "heldout-alb")
    _heldout_allow(aws, alb, 80, cidr="0.0.0.0/0")
    app = _heldout_group(aws, handles, "heldout-app")
    _heldout_allow(aws, app, 80, source=alb)
    _heldout_allow(aws, app, 80, cidr="0.0.0.0/0")
