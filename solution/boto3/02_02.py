"""Step 02.02: two public subnets, 10.0.1.0/24 in the region's zone "a" and 10.0.2.0/24 in zone "b"."""

from botocore.exceptions import ClientError


async def run(session, context, logger):
    vpc_id = next(h["id"] for h in context["resolved"] if h["name"] == "02_01_vpc")
    try:
        ec2 = session.client("ec2")
        zones = [z["ZoneName"] for z in ec2.describe_availability_zones()["AvailabilityZones"]]
        made = []
        for name, cidr, letter in (
            ("02_02_public_subnet_a", "10.0.1.0/24", "a"),
            ("02_02_public_subnet_b", "10.0.2.0/24", "b"),
        ):
            zone = next(z for z in zones if z.endswith(letter))
            subnet_id = ec2.create_subnet(VpcId=vpc_id, CidrBlock=cidr, AvailabilityZone=zone)["Subnet"]["SubnetId"]
            ec2.modify_subnet_attribute(SubnetId=subnet_id, MapPublicIpOnLaunch={"Value": True})
            made.append({"name": name, "type": "AWS::EC2::Subnet", "id": subnet_id})
        return {"success": True, "resources": made}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
