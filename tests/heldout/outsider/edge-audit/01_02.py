"""Outsider: step 01.02 (the VPC, its subnets, one route table and the S3 gateway endpoint)."""

import json

from harness.authoring.scenarios import mistake

from ._lib import all_of, zone


def _vpc(aws, cidr="10.20.0.0/16"):
    return aws.client("ec2").create_vpc(CidrBlock=cidr)["Vpc"]["VpcId"]


def _subnet(aws, vpc, cidr, letter):
    return aws.client("ec2").create_subnet(VpcId=vpc, CidrBlock=cidr, AvailabilityZone=zone(aws, letter))["Subnet"][
        "SubnetId"
    ]


def _main_table(aws, vpc):
    tables = aws.client("ec2").describe_route_tables(
        Filters=[{"Name": "vpc-id", "Values": [vpc]}, {"Name": "association.main", "Values": ["true"]}]
    )["RouteTables"]
    return tables[0]["RouteTableId"]


def _table(aws, vpc, *subnets):
    ec2 = aws.client("ec2")
    table = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
    for subnet in subnets:
        ec2.associate_route_table(RouteTableId=table, SubnetId=subnet)
    return table


def _endpoint(aws, vpc, tables, service="s3", kind="Gateway", **args):
    return aws.client("ec2").create_vpc_endpoint(
        VpcId=vpc,
        ServiceName=f"com.amazonaws.{aws.region_name}.{service}",
        VpcEndpointType=kind,
        **({"RouteTableIds": tables} if kind == "Gateway" else {}),
        **args,
    )["VpcEndpoint"]["VpcEndpointId"]


@mistake(expect="pass")
def right_explicit_route_table(aws, handles):
    """Right: the VPC, subnets in a and b, one new route table associated with both, the S3 gateway endpoint on it."""
    vpc = _vpc(aws)
    a = _subnet(aws, vpc, "10.20.1.0/24", "a")
    b = _subnet(aws, vpc, "10.20.2.0/24", "b")
    _endpoint(aws, vpc, [_table(aws, vpc, a, b)])


@mistake(expect="pass")
def equivalent_main_route_table_subnet_b_first(aws, handles):
    """Equivalent: both subnets left on the VPC's main route table (no explicit association), the endpoint on the
    main table; subnet b made before subnet a. Must pass, the route table being the main one."""
    vpc = _vpc(aws)
    _subnet(aws, vpc, "10.20.2.0/24", "b")
    _subnet(aws, vpc, "10.20.1.0/24", "a")
    _endpoint(aws, vpc, [_main_table(aws, vpc)])


@mistake(expect="pass")
def right_beside_an_older_vpc(aws, handles):
    """Decoy first: an older VPC 10.0.0.0/16 with a subnet and its own S3 endpoint, then the right build (endpoint
    also on a second, unused table of the new VPC: it routes for the subnets' table among others). Must pass."""
    old = _vpc(aws, "10.0.0.0/16")
    _subnet(aws, old, "10.0.1.0/24", "a")
    _endpoint(aws, old, [_main_table(aws, old)])
    vpc = _vpc(aws)
    a = _subnet(aws, vpc, "10.20.1.0/24", "a")
    b = _subnet(aws, vpc, "10.20.2.0/24", "b")
    table = _table(aws, vpc, a, b)
    _endpoint(aws, vpc, [table, _main_table(aws, vpc)])


@mistake(issue=all_of("(subnet|10\\.20\\.[12]\\.0/24)", "(zone|AZ|availability)"))
def subnets_in_swapped_zones(aws, handles):
    """Cause: 10.20.1.0/24 is in the zone ending in b and 10.20.2.0/24 in the one ending in a (swapped)."""
    vpc = _vpc(aws)
    a = _subnet(aws, vpc, "10.20.1.0/24", "b")
    b = _subnet(aws, vpc, "10.20.2.0/24", "a")
    _endpoint(aws, vpc, [_table(aws, vpc, a, b)])


@mistake(issue=all_of("(VPC|vpc-)", "(10\\.20\\.0\\.0/16|CIDR)"))
def vpc_on_the_console_default_cidr(aws, handles):
    """Cause: the VPC is 10.0.0.0/16 (the console's default) with subnets 10.0.1.0/24 and 10.0.2.0/24."""
    vpc = _vpc(aws, "10.0.0.0/16")
    a = _subnet(aws, vpc, "10.0.1.0/24", "a")
    b = _subnet(aws, vpc, "10.0.2.0/24", "b")
    _endpoint(aws, vpc, [_table(aws, vpc, a, b)])


@mistake(issue=all_of("(10\\.20\\.2\\.0/24|subnet)", "(10\\.20\\.2\\.0/24|CIDR)"))
def second_subnet_wrong_cidr(aws, handles):
    """Cause: the second subnet is 10.20.3.0/24, not 10.20.2.0/24."""
    vpc = _vpc(aws)
    a = _subnet(aws, vpc, "10.20.1.0/24", "a")
    b = _subnet(aws, vpc, "10.20.3.0/24", "b")
    _endpoint(aws, vpc, [_table(aws, vpc, a, b)])


@mistake(issue=all_of("endpoint", "(Gateway|Interface|type)"))
def interface_endpoint_for_s3(aws, handles):
    """Cause: the S3 endpoint is an Interface endpoint (PrivateLink, in the subnets), not a Gateway endpoint."""
    vpc = _vpc(aws)
    a = _subnet(aws, vpc, "10.20.1.0/24", "a")
    b = _subnet(aws, vpc, "10.20.2.0/24", "b")
    _table(aws, vpc, a, b)
    _endpoint(aws, vpc, None, kind="Interface", SubnetIds=[a, b])


@mistake(issue=all_of("endpoint", "(s3|dynamodb|service)"))
def dynamodb_gateway_endpoint(aws, handles):
    """Cause: the gateway endpoint is for DynamoDB (the other gateway service in the list), not S3."""
    vpc = _vpc(aws)
    a = _subnet(aws, vpc, "10.20.1.0/24", "a")
    b = _subnet(aws, vpc, "10.20.2.0/24", "b")
    _endpoint(aws, vpc, [_table(aws, vpc, a, b)], service="dynamodb")


@mistake(issue=all_of("endpoint", "(route table|rtb-)"))
def endpoint_on_the_main_table_subnets_on_another(aws, handles):
    """Mis-wired: both subnets use a new route table, but the endpoint routes only for the VPC's main table."""
    vpc = _vpc(aws)
    a = _subnet(aws, vpc, "10.20.1.0/24", "a")
    b = _subnet(aws, vpc, "10.20.2.0/24", "b")
    _table(aws, vpc, a, b)
    _endpoint(aws, vpc, [_main_table(aws, vpc)])


@mistake(issue=all_of("(subnet|10\\.20\\.)", "(route table|rtb-)"))
def subnets_on_two_route_tables(aws, handles):
    """Cause: subnet a uses a new route table, subnet b stays on the main one: not one route table for both
    (the endpoint routes for the new one)."""
    vpc = _vpc(aws)
    a = _subnet(aws, vpc, "10.20.1.0/24", "a")
    _subnet(aws, vpc, "10.20.2.0/24", "b")
    _endpoint(aws, vpc, [_table(aws, vpc, a)])


@mistake(issue=all_of("endpoint", "(VPC|vpc-|route table|missing|no |not found|none)"))
def endpoint_in_the_older_vpc(aws, handles):
    """Near miss beside a decoy: the learner picked the older VPC (10.0.0.0/16) in the endpoint's VPC list, so the
    new VPC has no S3 endpoint."""
    old = _vpc(aws, "10.0.0.0/16")
    vpc = _vpc(aws)
    a = _subnet(aws, vpc, "10.20.1.0/24", "a")
    b = _subnet(aws, vpc, "10.20.2.0/24", "b")
    _table(aws, vpc, a, b)
    _endpoint(aws, old, [_main_table(aws, old)])


@mistake(expect="pass")
def equivalent_explicit_association_with_the_main_table(aws, handles):
    """Equivalent: both subnets explicitly associated with the VPC's main route table (the console's "Edit route
    table association" on each), the endpoint on that table."""
    ec2 = aws.client("ec2")
    vpc = _vpc(aws)
    main = _main_table(aws, vpc)
    for cidr, letter in (("10.20.1.0/24", "a"), ("10.20.2.0/24", "b")):
        ec2.associate_route_table(RouteTableId=main, SubnetId=_subnet(aws, vpc, cidr, letter))
    _endpoint(aws, vpc, [main])


@mistake(expect="pass")
def equivalent_endpoint_policy_for_the_site_bucket(aws, handles):
    """Equivalent: the gateway endpoint carries a policy that allows only s3:GetObject/PutObject on the lab's
    buckets (the step says nothing of the endpoint's policy)."""
    vpc = _vpc(aws)
    a = _subnet(aws, vpc, "10.20.1.0/24", "a")
    b = _subnet(aws, vpc, "10.20.2.0/24", "b")
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": "*",
                "Action": ["s3:GetObject", "s3:PutObject"],
                "Resource": "arn:aws:s3:::edge-audit-*/*",
            }
        ],
    }
    _endpoint(aws, vpc, [_table(aws, vpc, a, b)], PolicyDocument=json.dumps(policy))
