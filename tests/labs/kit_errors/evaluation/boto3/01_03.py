"""Finds the VPC in its events while every DescribeVpcs attempt answers 500 InternalError: retried, then an
error, never a fail."""

from botocore.awsrequest import AWSResponse

from harness.kit import ec2
from harness.kit.step import Step

BROKEN = (
    b"<Response><Errors><Error><Code>InternalError</Code><Message>An internal error has occurred."
    b"</Message></Error></Errors><RequestID>kit-errors</RequestID></Response>"
)


class _Raw:
    def __init__(self, body):
        self._body = body

    def stream(self, **_):
        yield self._body


def fail(request, **_):
    return AWSResponse(request.url, 500, {"Content-Type": "text/xml"}, _Raw(BROKEN))


async def run(session, context, logger):
    session.client("ec2").meta.events.register("before-send.ec2.DescribeVpcs", fail)
    step = Step(session, context, logger)
    with step:
        step.find("01_03_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16")])
    return step.result()
