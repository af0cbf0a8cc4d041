"""Step 01.02: the mistakes learners make with the VPC, its subnets and the S3 endpoint."""

from harness.authoring.scenarios import mistake


def _zone(ec2, letter):
    return next(
        z["ZoneName"] for z in ec2.describe_availability_zones()["AvailabilityZones"] if z["ZoneName"].endswith(letter)
    )


def _network(aws, *, cidr="10.20.0.0/16", zones=("a", "b"), explicit=False, tables=None, endpoint="Gateway",
             service="s3", second="10.20.2.0/24"):  # fmt: skip
    """The VPC and its subnets; the route table they use (explicit or main); an endpoint unless endpoint is None."""
    ec2 = aws.client("ec2")
    vpc = ec2.create_vpc(CidrBlock=cidr)["Vpc"]["VpcId"]
    subnets = [
        ec2.create_subnet(VpcId=vpc, CidrBlock=block, AvailabilityZone=_zone(ec2, letter))["Subnet"]["SubnetId"]
        for block, letter in ((cidr.replace("0.0/16", "1.0/24"), zones[0]), (second, zones[1]))
    ]
    filters = [{"Name": "vpc-id", "Values": [vpc]}, {"Name": "association.main", "Values": ["true"]}]
    table = ec2.describe_route_tables(Filters=filters)["RouteTables"][0]["RouteTableId"]
    if explicit:
        table = ec2.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"]
        for subnet in subnets[: 1 if explicit == "one" else 2]:
            ec2.associate_route_table(RouteTableId=table, SubnetId=subnet)
    if endpoint:
        ec2.create_vpc_endpoint(
            VpcId=vpc, VpcEndpointType=endpoint, ServiceName=f"com.amazonaws.{aws.region_name}.{service}",
            **({"RouteTableIds": tables if tables is not None else [table]} if endpoint == "Gateway" else {}),
        )  # fmt: skip
    return vpc, subnets, table


@mistake(expect="pass")
def subnets_on_a_route_table_of_their_own(aws, handles):
    _network(aws, explicit=True)


@mistake(expect="pass", events="reversed")
def events_in_the_other_order(aws, handles):
    _network(aws)


@mistake(issue=r"VPC vpc-\w+: CIDR block should be 10\.20\.0\.0/16, but is 10\.0\.0\.0/16")
def the_console_default_cidr(aws, handles):
    _network(aws, cidr="10.0.0.0/16", second="10.0.2.0/24")


@mistake(issue=r"Subnet subnet-\w+: availability zone should be the zone ending in 'b'")
def both_subnets_in_one_zone(aws, handles):
    _network(aws, zones=("a", "a"))


@mistake(issue=r"VPC endpoint vpce-\w+: it routes for no route table; it should route for rtb-\w+")
def endpoint_on_no_route_table(aws, handles):
    _network(aws, tables=[])


@mistake(issue=r"VPC endpoint vpce-\w+: it routes for rtb-\w+; it should route for rtb-\w+ too")
def endpoint_on_the_main_table_while_the_subnets_use_their_own(aws, handles):
    ec2 = aws.client("ec2")
    vpc, _, _ = _network(aws, explicit=True, endpoint=None)
    main = ec2.describe_route_tables(
        Filters=[{"Name": "vpc-id", "Values": [vpc]}, {"Name": "association.main", "Values": ["true"]}]
    )["RouteTables"][0]["RouteTableId"]
    ec2.create_vpc_endpoint(
        VpcId=vpc, VpcEndpointType="Gateway", ServiceName=f"com.amazonaws.{aws.region_name}.s3", RouteTableIds=[main]
    )


@mistake(issue=r"Route table rtb-\w+: it is associated with subnet-\w+; it should be associated with subnet-\w+ too")
def one_subnet_left_on_the_main_table(aws, handles):
    _network(aws, explicit="one")


@mistake(issue=r"VPC endpoint vpce-\w+: service should be s3, but is com\.amazonaws\.[\w-]+\.dynamodb")
def a_dynamodb_endpoint(aws, handles):
    _network(aws, service="dynamodb")


@mistake(issue=r"VPC endpoint vpce-\w+: endpoint type should be Gateway, but is Interface")
def an_interface_endpoint(aws, handles):
    _network(aws, endpoint="Interface")
