"""Creates a VPC, swallows the refusal and claims success: still a read_only error."""


async def run(session, context, logger):
    try:
        session.client("ec2").create_vpc(CidrBlock="10.9.0.0/16")
    except Exception as exc:  # noqa: BLE001 - deliberately swallowed
        logger.info("ignored %s", exc)
    return {
        "validated": [{"name": "01_02_vpc", "type": "AWS::EC2::VPC", "id": "vpc-1", "status": "found"}],
        "success": True,
        "message": "ok",
    }
