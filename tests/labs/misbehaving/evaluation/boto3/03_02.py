"""The first S3 call is throttled, the retry succeeds: botocore's standard retry mode must absorb it."""

from botocore.config import Config

from harness.sandbox.faults import inject_error


async def run(session, context, logger):
    s3 = session.client("s3", config=Config(user_agent_extra="throttle-once"))
    fault = inject_error(s3, "SlowDown", status=503, message="Please reduce your request rate.", times=1)
    names = [bucket["Name"] for bucket in s3.list_buckets()["Buckets"]]
    return {
        "validated": [{"name": "03_02_bucket", "type": "AWS::S3::Bucket", "id": names[0], "status": "found"}],
        "success": True,
        "message": f"answered after {fault.attempts} attempts",
    }
