from harness.authoring.scenarios import equivalent, mistake, solve


@equivalent("EnableDnsSupport", reason="planted: this lab's evaluator leaves DNS support to the default")
@equivalent("NoSuchCall", reason="planted: a mark that matches no mutant")
@solve
def vpc_with_dns(aws, handles):
    ec2 = aws.client("ec2")
    vpc_id = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    ec2.modify_vpc_attribute(VpcId=vpc_id, EnableDnsSupport={"Value": True})
    ec2.modify_vpc_attribute(VpcId=vpc_id, EnableDnsHostnames={"Value": True})


@mistake(issue=r"(?i)cidr")
def wrong_cidr(aws, handles):
    aws.client("ec2").create_vpc(CidrBlock="10.1.0.0/16")
