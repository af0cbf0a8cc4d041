"""Step 01.02: a VPC, two subnets left on its main route table, and a gateway endpoint for S3 on that table."""

from botocore.exceptions import ClientError


def _zone(ec2, letter):
    zones = ec2.describe_availability_zones()["AvailabilityZones"]
    return next(z["ZoneName"] for z in zones if z["ZoneName"].endswith(letter))


async def run(session, context, logger):
    try:
        ec2 = session.client("ec2")
        vpc = ec2.create_vpc(CidrBlock="10.20.0.0/16")["Vpc"]["VpcId"]
        subnets = [
            ec2.create_subnet(VpcId=vpc, CidrBlock=cidr, AvailabilityZone=_zone(ec2, letter))["Subnet"]["SubnetId"]
            for cidr, letter in (("10.20.1.0/24", "a"), ("10.20.2.0/24", "b"))
        ]
        main = ec2.describe_route_tables(
            Filters=[{"Name": "vpc-id", "Values": [vpc]}, {"Name": "association.main", "Values": ["true"]}]
        )["RouteTables"][0]["RouteTableId"]
        endpoint = ec2.create_vpc_endpoint(
            VpcId=vpc,
            VpcEndpointType="Gateway",
            ServiceName=f"com.amazonaws.{session.region_name}.s3",
            RouteTableIds=[main],
        )["VpcEndpoint"]["VpcEndpointId"]
        return {
            "success": True,
            "resources": [
                {"name": "01_02_vpc", "type": "AWS::EC2::VPC", "id": vpc},
                {"name": "01_02_subnet_a", "type": "AWS::EC2::Subnet", "id": subnets[0]},
                {"name": "01_02_subnet_b", "type": "AWS::EC2::Subnet", "id": subnets[1]},
                {"name": "01_02_route_table", "type": "AWS::EC2::RouteTable", "id": main},
                {"name": "01_02_endpoint", "type": "AWS::EC2::VPCEndpoint", "id": endpoint},
            ],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
