"""What a lab spec's `emulator:` asks reaches the moto server processes `stepeval test` plays on."""

from __future__ import annotations

import urllib.request

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


def test_managed_policies_built_once_start_clean_after_each_reset() -> None:
    """The server builds AWS managed policies once (moto's IAMBackend._init_aws_policies, patched in the server
    process) and hands each fresh backend copies: an attachment made before a reset is gone after it."""
    from moto.iam.models import IAMBackend

    assert callable(IAMBackend._init_aws_policies)  # the moto internal harness.emulator relies on
    trust = '{"Version": "2012-10-17", "Statement": []}'
    with moto_servers(1, EmulatorNeeds(iam_managed_policies=True).environment()) as (sandbox,):
        iam = boto3.client("iam", endpoint_url=sandbox.endpoint_url, region_name="us-east-1")
        for _ in range(2):
            iam.create_role(RoleName="r", AssumeRolePolicyDocument=trust)
            iam.attach_role_policy(RoleName="r", PolicyArn=MANAGED)
            assert iam.get_policy(PolicyArn=MANAGED)["Policy"]["AttachmentCount"] == 1
            request = urllib.request.Request(f"{sandbox.endpoint_url}/moto-api/reset", method="POST")
            urllib.request.urlopen(request, timeout=10).close()
            assert iam.get_policy(PolicyArn=MANAGED)["Policy"]["AttachmentCount"] == 0
