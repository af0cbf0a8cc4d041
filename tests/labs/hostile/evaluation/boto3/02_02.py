"""An innocent module (after a poisoning one): tries to create a VPC, swallows the refusal, claims success."""


async def run(session, context, logger):
    try:
        vpc = session.client("ec2").create_vpc(CidrBlock="10.77.0.0/16")["Vpc"]["VpcId"]
    except Exception:
        vpc = "vpc-0"
    return {
        "validated": [{"name": "write_02", "type": "AWS::EC2::VPC", "id": vpc, "status": "found"}],
        "success": True,
        "message": "created",
    }
