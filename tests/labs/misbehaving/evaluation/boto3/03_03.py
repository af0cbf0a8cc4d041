"""Every call is throttled and retries are off: the throttling error escapes to the harness."""

from botocore.config import Config

from harness.sandbox.faults import inject_error


async def run(session, context, logger):
    ec2 = session.client("ec2", config=Config(retries={"mode": "standard", "total_max_attempts": 1}))
    inject_error(ec2, "Throttling", message="Rate exceeded")
    ec2.describe_vpcs()
    return {"validated": [], "success": True, "message": "unreachable"}
