"""Step 02.02: the mistakes learners make with the two public subnets (solution/boto3/02_02.py solves it)."""

from harness.authoring.scenarios import mistake


def _zone(aws, letter):
    zones = aws.client("ec2").describe_availability_zones()["AvailabilityZones"]
    return next(z["ZoneName"] for z in zones if z["ZoneName"].endswith(letter))


def _subnet(aws, vpc_id, cidr, letter, *, public=True):
    ec2 = aws.client("ec2")
    subnet = ec2.create_subnet(VpcId=vpc_id, CidrBlock=cidr, AvailabilityZone=_zone(aws, letter))["Subnet"]
    if public:
        ec2.modify_subnet_attribute(SubnetId=subnet["SubnetId"], MapPublicIpOnLaunch={"Value": True})
    return subnet["SubnetId"]


@mistake(issue=r"(?i)availability zone")
def both_in_one_zone(aws, handles):
    _subnet(aws, handles["02_01_vpc"], "10.0.1.0/24", "a")
    _subnet(aws, handles["02_01_vpc"], "10.0.2.0/24", "a")


@mistake(issue=r"(?i)public ipv4|MapPublicIpOnLaunch")
def public_ips_left_off(aws, handles):
    _subnet(aws, handles["02_01_vpc"], "10.0.1.0/24", "a")
    _subnet(aws, handles["02_01_vpc"], "10.0.2.0/24", "b", public=False)


@mistake(issue=r"(?i)availability zone|cidr")
def cidrs_swapped_between_zones(aws, handles):
    _subnet(aws, handles["02_01_vpc"], "10.0.2.0/24", "a")
    _subnet(aws, handles["02_01_vpc"], "10.0.1.0/24", "b")


@mistake(issue=r"(?i)cidr")
def wrong_cidr(aws, handles):
    _subnet(aws, handles["02_01_vpc"], "10.0.1.0/24", "a")
    _subnet(aws, handles["02_01_vpc"], "10.0.20.0/24", "b")


@mistake(issue=r"(?i)vpc")
def in_another_vpc(aws, handles):
    other = aws.client("ec2").create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    _subnet(aws, handles["02_01_vpc"], "10.0.1.0/24", "a")
    _subnet(aws, other, "10.0.2.0/24", "b")


@mistake(expect="pass", events="reversed")
def events_reversed(aws, handles):
    _subnet(aws, handles["02_01_vpc"], "10.0.1.0/24", "a")
    _subnet(aws, handles["02_01_vpc"], "10.0.2.0/24", "b")


@mistake(expect="pass")
def zone_b_first(aws, handles):
    _subnet(aws, handles["02_01_vpc"], "10.0.2.0/24", "b")
    _subnet(aws, handles["02_01_vpc"], "10.0.1.0/24", "a")
