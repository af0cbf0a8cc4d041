"""Every call is throttled and retries are off: the throttling error escapes to the harness."""

from botocore.awsrequest import AWSResponse
from botocore.config import Config

THROTTLED = b"<ErrorResponse><Error><Code>Throttling</Code><Message>Rate exceeded</Message></Error></ErrorResponse>"


class _Raw:
    def __init__(self, body):
        self._body = body

    def stream(self, **_):
        yield self._body


def throttle(request, **_):
    return AWSResponse(request.url, 400, {"Content-Type": "text/xml"}, _Raw(THROTTLED))


async def run(session, context, logger):
    ec2 = session.client("ec2", config=Config(retries={"max_attempts": 1}))
    ec2.meta.events.register("before-send", throttle)
    ec2.describe_vpcs()
    return {"validated": [], "success": True, "message": "unreachable"}
