"""What a lab spec's `emulator:` asks reaches the moto server processes `stepeval test` plays on."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError

from harness.emulator import moto_servers
from harness.lab import EmulatorNeeds

MANAGED = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"


def managed_policy_name(endpoint_url: str) -> str | None:
    iam = boto3.client("iam", endpoint_url=endpoint_url, region_name="us-east-1")
    try:
        return iam.get_policy(PolicyArn=MANAGED)["Policy"]["PolicyName"]
    except ClientError as error:
        assert error.response["Error"]["Code"] == "NoSuchEntity"
        return None


@pytest.mark.parametrize(("needs", "expected"), [(False, None), (True, "AWSLambdaBasicExecutionRole")])
def test_aws_managed_policies_are_loaded_when_the_lab_asks(needs: bool, expected: str | None) -> None:
    with moto_servers(1, EmulatorNeeds(iam_managed_policies=needs).environment()) as (sandbox,):
        assert managed_policy_name(sandbox.endpoint_url) == expected
