"""Step 02.01: the VPC, 10.0.0.0/16, with DNS support and DNS hostnames."""

from botocore.exceptions import ClientError


async def run(session, context, logger):
    try:
        ec2 = session.client("ec2")
        vpc_id = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
        ec2.modify_vpc_attribute(VpcId=vpc_id, EnableDnsSupport={"Value": True})
        ec2.modify_vpc_attribute(VpcId=vpc_id, EnableDnsHostnames={"Value": True})
        return {"success": True, "resources": [{"name": "02_01_vpc", "type": "AWS::EC2::VPC", "id": vpc_id}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
