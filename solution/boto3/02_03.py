"""Step 02.03: an internet gateway attached to the VPC, and a public route table for both public subnets."""

from botocore.exceptions import ClientError


async def run(session, context, logger):
    handles = {h["name"]: h["id"] for h in context["resolved"]}
    vpc_id = handles["02_01_vpc"]
    try:
        ec2 = session.client("ec2")
        igw_id = ec2.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
        ec2.attach_internet_gateway(InternetGatewayId=igw_id, VpcId=vpc_id)
        table_id = ec2.create_route_table(VpcId=vpc_id)["RouteTable"]["RouteTableId"]
        ec2.create_route(RouteTableId=table_id, DestinationCidrBlock="0.0.0.0/0", GatewayId=igw_id)
        for subnet in ("02_02_public_subnet_a", "02_02_public_subnet_b"):
            ec2.associate_route_table(RouteTableId=table_id, SubnetId=handles[subnet])
        return {
            "success": True,
            "resources": [
                {"name": "02_03_igw", "type": "AWS::EC2::InternetGateway", "id": igw_id},
                {"name": "02_03_public_rt", "type": "AWS::EC2::RouteTable", "id": table_id},
            ],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
