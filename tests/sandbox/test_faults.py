"""`harness.sandbox.faults` answers in each protocol's wire format, so botocore raises the error as AWS would."""

from __future__ import annotations

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from harness.sandbox.faults import inject_error

NO_RETRY = Config(retries={"mode": "standard", "total_max_attempts": 1})


@pytest.mark.parametrize(
    ("service", "call"),
    [
        ("ec2", lambda c: c.describe_vpcs()),  # ec2
        ("s3", lambda c: c.list_buckets()),  # rest-xml
        ("sts", lambda c: c.get_caller_identity()),  # query
        ("dynamodb", lambda c: c.list_tables()),  # json
        ("lambda", lambda c: c.list_functions()),  # rest-json
    ],
)
def test_the_error_is_raised_with_its_code_and_message(service: str, call) -> None:
    client = boto3.Session(region_name="us-east-1").client(service, config=NO_RETRY)
    fault = inject_error(client, "AccessDenied", status=403, message="Access & denied <here>")
    with pytest.raises(ClientError) as raised:
        call(client)
    assert raised.value.response["Error"]["Code"] == "AccessDenied"
    assert raised.value.response["Error"]["Message"] == "Access & denied <here>"
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert fault.attempts == 1


def test_only_the_named_operation_and_only_so_many_times() -> None:
    client = boto3.Session(region_name="us-east-1").client("ec2", config=NO_RETRY)
    first = inject_error(client, "Throttling", operation="DescribeVpcs", times=1)
    behind = inject_error(client, "Behind", operation="DescribeVpcs")  # answers what the first lets through
    other = inject_error(client, "Other", operation="DescribeSubnets")
    with pytest.raises(ClientError, match="Throttling"):
        client.describe_vpcs()
    with pytest.raises(ClientError, match="Behind"):
        client.describe_vpcs()
    with pytest.raises(ClientError, match="Other"):
        client.describe_subnets()
    # botocore shows every request to every handler and takes the first answer: both saw the two DescribeVpcs.
    assert (first.attempts, behind.attempts, other.attempts) == (2, 2, 1)
