"""The first S3 call is throttled, the retry succeeds: botocore's standard retry mode must absorb it."""

from botocore.awsrequest import AWSResponse
from botocore.config import Config

THROTTLED = b"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"


class _Raw:
    def __init__(self, body):
        self._body = body

    def stream(self, **_):
        yield self._body


async def run(session, context, logger):
    attempts = []

    def throttle_once(request, **_):
        attempts.append(request.url)
        if len(attempts) == 1:
            return AWSResponse(request.url, 503, {"Content-Type": "application/xml"}, _Raw(THROTTLED))
        return None

    s3 = session.client("s3", config=Config(user_agent_extra="throttle-once"))
    s3.meta.events.register("before-send", throttle_once)
    names = [bucket["Name"] for bucket in s3.list_buckets()["Buckets"]]
    return {
        "validated": [{"name": "03_02_bucket", "type": "AWS::S3::Bucket", "id": names[0], "status": "found"}],
        "success": True,
        "message": f"answered after {len(attempts)} attempts",
    }
