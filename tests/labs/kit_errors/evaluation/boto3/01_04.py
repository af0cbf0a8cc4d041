"""Re-verifies its input VPC while DescribeVpcs answers 403 UnauthorizedOperation: an error, not "no longer
exists"."""

from botocore.awsrequest import AWSResponse

from harness.kit import ec2
from harness.kit.step import Step

UNAUTHORIZED = (
    b"<Response><Errors><Error><Code>UnauthorizedOperation</Code><Message>You are not authorized to perform "
    b"this operation.</Message></Error></Errors><RequestID>kit-errors</RequestID></Response>"
)


class _Raw:
    def __init__(self, body):
        self._body = body

    def stream(self, **_):
        yield self._body


def deny(request, **_):
    return AWSResponse(request.url, 403, {"Content-Type": "text/xml"}, _Raw(UNAUTHORIZED))


async def run(session, context, logger):
    session.client("ec2").meta.events.register("before-send.ec2.DescribeVpcs", deny)
    step = Step(session, context, logger)
    with step:
        vpc = step.input("01_01_vpc", ec2.VPC)
        step.find("01_04_subnet", ec2.SUBNET, [ec2.in_vpc(vpc)])
    return step.result()
