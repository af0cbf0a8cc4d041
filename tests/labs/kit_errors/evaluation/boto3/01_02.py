"""Finds the VPC in its events while DescribeVpcs is throttled on every attempt: the throttling escapes the kit
as an error, never a fail.

Step gets a session whose clients make one attempt only: on the harness's cached client, botocore's standard mode
retries a throttled call 3 times (4 attempts) with jittered backoff of up to 1 + 2 + 4 s, too slow for a unit suite (that
retry is the harness's, tested in tests/sandbox/test_misbehaving.py). What the kit does with the error is the same.
"""

from botocore.config import Config

from harness.sandbox.faults import inject_error
from harness.kit import ec2
from harness.kit.step import Step

ONE_ATTEMPT = Config(retries={"mode": "standard", "total_max_attempts": 1})


class _OneAttemptSession:
    """The handed session, with clients that do not retry; DescribeVpcs throttled on each of them."""

    def __init__(self, session):
        self._session = session
        self._clients = {}

    def client(self, service):
        if service not in self._clients:
            client = self._session.client(service, config=ONE_ATTEMPT)
            inject_error(client, "RequestLimitExceeded", message="Request limit exceeded.", operation="DescribeVpcs")
            self._clients[service] = client
        return self._clients[service]


async def run(session, context, logger):
    step = Step(_OneAttemptSession(session), context, logger)
    with step:
        step.find("01_02_vpc", ec2.VPC, [ec2.cidr("10.0.0.0/16")])
    return step.result()
