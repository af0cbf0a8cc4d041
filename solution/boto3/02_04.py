"""Step 02.04: a private subnet whose traffic leaves through a NAT gateway in public subnet "a"."""

import asyncio

from botocore.exceptions import ClientError


async def _available(ec2, nat_id):
    """Wait (at most a minute) until the NAT gateway is available: routes to it are refused before."""
    for _ in range(60):
        state = ec2.describe_nat_gateways(NatGatewayIds=[nat_id])["NatGateways"][0]["State"]
        if state == "available":
            return
        await asyncio.sleep(1)


async def run(session, context, logger):
    handles = {h["name"]: h["id"] for h in context["resolved"]}
    vpc_id = handles["02_01_vpc"]
    try:
        ec2 = session.client("ec2")
        private = ec2.create_subnet(VpcId=vpc_id, CidrBlock="10.0.3.0/24")["Subnet"]["SubnetId"]
        allocation = ec2.allocate_address(Domain="vpc")["AllocationId"]
        nat = ec2.create_nat_gateway(SubnetId=handles["02_02_public_subnet_a"], AllocationId=allocation)
        nat_id = nat["NatGateway"]["NatGatewayId"]
        await _available(ec2, nat_id)
        table_id = ec2.create_route_table(VpcId=vpc_id)["RouteTable"]["RouteTableId"]
        ec2.create_route(RouteTableId=table_id, DestinationCidrBlock="0.0.0.0/0", NatGatewayId=nat_id)
        ec2.associate_route_table(RouteTableId=table_id, SubnetId=private)
        return {
            "success": True,
            "resources": [
                {"name": "02_04_private_subnet", "type": "AWS::EC2::Subnet", "id": private},
                {"name": "02_04_eip", "type": "AWS::EC2::EIP", "id": allocation},
                {"name": "02_04_nat", "type": "AWS::EC2::NatGateway", "id": nat_id},
                {"name": "02_04_private_rt", "type": "AWS::EC2::RouteTable", "id": table_id},
            ],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
