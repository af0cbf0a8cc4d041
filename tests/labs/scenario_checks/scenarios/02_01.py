"""Step 02.01's scenarios."""

from harness.authoring.scenarios import mistake, solve


@solve
def vpc(aws, handles):
    aws.client("ec2").create_vpc(CidrBlock="10.0.0.0/16")


@mistake(issue=r"CIDR 10\.0\.0\.0/16")
def wrong_cidr(aws, handles):
    aws.client("ec2").create_vpc(CidrBlock="10.1.0.0/16")
