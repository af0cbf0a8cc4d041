"""Step 02.03: the mistakes learners make with the internet gateway and the public route table
(solution/boto3/02_03.py solves it)."""

from harness.authoring.scenarios import mistake

WORLD = "0.0.0.0/0"


def _gateway(aws, vpc_id, *, attach=True):
    ec2 = aws.client("ec2")
    igw_id = ec2.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
    if attach:
        ec2.attach_internet_gateway(InternetGatewayId=igw_id, VpcId=vpc_id)
    return igw_id


def _route_table(aws, vpc_id, subnets, **target):
    ec2 = aws.client("ec2")
    table_id = ec2.create_route_table(VpcId=vpc_id)["RouteTable"]["RouteTableId"]
    if target:
        ec2.create_route(RouteTableId=table_id, DestinationCidrBlock=WORLD, **target)
    for subnet_id in subnets:
        ec2.associate_route_table(RouteTableId=table_id, SubnetId=subnet_id)
    return table_id


def _public_subnets(handles):
    return [handles["02_02_public_subnet_a"], handles["02_02_public_subnet_b"]]


@mistake(issue=r"(?i)associat")
def route_table_not_associated(aws, handles):
    vpc_id = handles["02_01_vpc"]
    igw_id = _gateway(aws, vpc_id)
    _route_table(aws, vpc_id, [], GatewayId=igw_id)


@mistake(issue=r"(?i)associat")
def only_subnet_a_associated(aws, handles):
    vpc_id = handles["02_01_vpc"]
    igw_id = _gateway(aws, vpc_id)
    _route_table(aws, vpc_id, [handles["02_02_public_subnet_a"]], GatewayId=igw_id)


@mistake(issue=r"(?i)attach")
def gateway_never_attached(aws, handles):
    # AWS refuses a route to a gateway that is not attached to the VPC, so the table is left without one.
    vpc_id = handles["02_01_vpc"]
    _gateway(aws, vpc_id, attach=False)
    _route_table(aws, vpc_id, _public_subnets(handles))


@mistake(issue=r"(?i)route 0\.0\.0\.0/0")
def default_route_missing(aws, handles):
    vpc_id = handles["02_01_vpc"]
    _gateway(aws, vpc_id)
    _route_table(aws, vpc_id, _public_subnets(handles))


@mistake(issue=r"(?i)route 0\.0\.0\.0/0")
def default_route_to_a_nat_gateway(aws, handles):
    vpc_id = handles["02_01_vpc"]
    _gateway(aws, vpc_id)
    ec2 = aws.client("ec2")
    allocation = ec2.allocate_address(Domain="vpc")["AllocationId"]
    nat = ec2.create_nat_gateway(SubnetId=handles["02_02_public_subnet_a"], AllocationId=allocation)
    _route_table(aws, vpc_id, _public_subnets(handles), NatGatewayId=nat["NatGateway"]["NatGatewayId"])


@mistake(issue=r"(?i)route table")
def main_route_table_edited_instead(aws, handles):
    vpc_id = handles["02_01_vpc"]
    igw_id = _gateway(aws, vpc_id)
    ec2 = aws.client("ec2")
    tables = ec2.describe_route_tables(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}])["RouteTables"]
    main = next(t for t in tables if any(a.get("Main") for a in t.get("Associations", [])))
    ec2.create_route(RouteTableId=main["RouteTableId"], DestinationCidrBlock=WORLD, GatewayId=igw_id)


@mistake(expect="pass", events="reversed")
def events_reversed(aws, handles):
    vpc_id = handles["02_01_vpc"]
    igw_id = _gateway(aws, vpc_id)
    _route_table(aws, vpc_id, _public_subnets(handles), GatewayId=igw_id)
