"""Step 02.04: the mistakes learners make with the private subnet behind a NAT gateway
(solution/boto3/02_04.py solves it)."""

from harness.authoring.scenarios import mistake

WORLD = "0.0.0.0/0"


def _build(aws, handles, *, public_ips=False, nat_in="a", world_to_igw=False, igw_route=False, associate=True):
    """The solve, with one thing done wrong when a keyword says so (`nat_in`: "a", "b" or "private")."""
    ec2 = aws.client("ec2")
    vpc_id, igw_id = handles["02_01_vpc"], handles["02_03_igw"]
    private = ec2.create_subnet(VpcId=vpc_id, CidrBlock="10.0.3.0/24")["Subnet"]["SubnetId"]
    if public_ips:
        ec2.modify_subnet_attribute(SubnetId=private, MapPublicIpOnLaunch={"Value": True})
    allocation = ec2.allocate_address(Domain="vpc")["AllocationId"]
    nat_subnet = private if nat_in == "private" else handles[f"02_02_public_subnet_{nat_in}"]
    nat_id = ec2.create_nat_gateway(SubnetId=nat_subnet, AllocationId=allocation)["NatGateway"]["NatGatewayId"]
    ec2.get_waiter("nat_gateway_available").wait(NatGatewayIds=[nat_id])
    table_id = ec2.create_route_table(VpcId=vpc_id)["RouteTable"]["RouteTableId"]
    world_target = {"GatewayId": igw_id} if world_to_igw else {"NatGatewayId": nat_id}
    ec2.create_route(RouteTableId=table_id, DestinationCidrBlock=WORLD, **world_target)
    if igw_route:
        ec2.create_route(RouteTableId=table_id, DestinationCidrBlock="198.51.100.0/24", GatewayId=igw_id)
    if associate:
        ec2.associate_route_table(RouteTableId=table_id, SubnetId=private)


@mistake(issue=r"(?i)subnet")
def nat_in_the_private_subnet(aws, handles):
    _build(aws, handles, nat_in="private")


@mistake(issue=r"(?i)subnet")
def nat_in_public_subnet_b(aws, handles):
    _build(aws, handles, nat_in="b")


@mistake(issue=r"(?i)public ipv4|MapPublicIpOnLaunch")
def private_subnet_with_public_ips(aws, handles):
    _build(aws, handles, public_ips=True)


@mistake(issue=r"(?i)route 0\.0\.0\.0/0")
def default_route_to_the_internet_gateway(aws, handles):
    _build(aws, handles, world_to_igw=True)


@mistake(issue=r"(?i)internet gateway")
def extra_route_to_the_internet_gateway(aws, handles):
    _build(aws, handles, igw_route=True)


@mistake(issue=r"(?i)associat")
def route_table_not_associated(aws, handles):
    _build(aws, handles, associate=False)


@mistake(expect="pass", events="reversed")
def events_reversed(aws, handles):
    _build(aws, handles)
