from harness.authoring.scenarios import mistake, solve


def _subnet(aws, vpc_id, cidr, zone):
    ec2 = aws.client("ec2")
    subnet = ec2.create_subnet(VpcId=vpc_id, CidrBlock=cidr, AvailabilityZone=zone)["Subnet"]
    ec2.modify_subnet_attribute(SubnetId=subnet["SubnetId"], MapPublicIpOnLaunch={"Value": True})


@solve
def two_public_subnets(aws, handles):
    _subnet(aws, handles["02_01_vpc"], "10.0.1.0/24", "us-east-1a")
    _subnet(aws, handles["02_01_vpc"], "10.0.2.0/24", "us-east-1b")


@mistake(issue=r"(?i)cidr")
def wrong_cidr(aws, handles):
    _subnet(aws, handles["02_01_vpc"], "10.0.1.0/24", "us-east-1a")
    _subnet(aws, handles["02_01_vpc"], "10.0.20.0/24", "us-east-1b")
