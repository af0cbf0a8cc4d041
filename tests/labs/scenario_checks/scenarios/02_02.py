"""Step 02.02's scenarios: they need 02.01's VPC id, replayed."""

from harness.authoring.scenarios import mistake, solve


@solve
def subnet(aws, handles):
    aws.client("ec2").create_subnet(VpcId=handles["02_01_vpc"], CidrBlock="10.0.1.0/24")


@mistake(issue=r"(?i)in the VPC")
def subnet_in_another_vpc(aws, handles):
    ec2 = aws.client("ec2")
    other = ec2.create_vpc(CidrBlock="10.9.0.0/16")["Vpc"]["VpcId"]
    ec2.create_subnet(VpcId=other, CidrBlock="10.9.1.0/24")
