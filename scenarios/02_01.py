"""Step 02.01: the mistakes learners make with the VPC (solution/boto3/02_01.py solves it)."""

from harness.authoring.scenarios import mistake


def _vpc(aws, cidr="10.0.0.0/16", *, dns_support=True, dns_hostnames=True):
    ec2 = aws.client("ec2")
    vpc_id = ec2.create_vpc(CidrBlock=cidr)["Vpc"]["VpcId"]
    ec2.modify_vpc_attribute(VpcId=vpc_id, EnableDnsSupport={"Value": dns_support})
    ec2.modify_vpc_attribute(VpcId=vpc_id, EnableDnsHostnames={"Value": dns_hostnames})
    return vpc_id


@mistake(issue=r"(?i)dns hostnames")
def dns_hostnames_left_off(aws, handles):
    _vpc(aws, dns_hostnames=False)


@mistake(issue=r"(?i)dns support")
def dns_support_off(aws, handles):
    _vpc(aws, dns_support=False, dns_hostnames=False)


@mistake(issue=r"(?i)cidr")
def wrong_cidr(aws, handles):
    _vpc(aws, "10.1.0.0/16")


@mistake(expect="pass")
def a_wrong_vpc_first(aws, handles):
    _vpc(aws, "172.16.0.0/16", dns_hostnames=False)
    _vpc(aws)
