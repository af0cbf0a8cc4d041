"""Finds the VPC in its events while every DescribeVpcs answers 403 AccessDenied: an error, never a fail."""

from botocore.awsrequest import AWSResponse

from harness.kit import ec2
from harness.kit.step import Step

DENIED = (
    b"<Response><Errors><Error><Code>AccessDenied</Code><Message>User is not authorized to perform "
    b"ec2:DescribeVpcs</Message></Error></Errors><RequestID>kit-errors</RequestID></Response>"
)


class _Raw:
    def __init__(self, body):
        self._body = body

    def stream(self, **_):
        yield self._body


def deny(request, **_):
    return AWSResponse(request.url, 403, {"Content-Type": "text/xml"}, _Raw(DENIED))


async def run(session, context, logger):
    # The cached client, as Step uses it; the harness undoes this handler after the evaluation.
    session.client("ec2").meta.events.register("before-send.ec2.DescribeVpcs", deny)
    step = Step(session, context, logger)
    with step:
        step.find("01_01_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16")])
    return step.result()
