"""What a lab spec's `emulator:` asks reaches the moto processes `stepeval test` plays on."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError

from harness.authoring.emulator import Emulator, moto_process
from harness.core.lab import EmulatorNeeds

pytestmark = [pytest.mark.process, pytest.mark.moto]

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
    with moto_process(EmulatorNeeds(iam_managed_policies=needs).environment()) as sandbox:
        assert managed_policy_name(sandbox.endpoint_url) == expected


def test_managed_policies_built_once_start_clean_in_each_copy() -> None:
    """The root builds AWS managed policies once (harness/_compat/moto.py, guarded in tests/_compat/test_moto.py)
    and hands each IAM backend copies: an attachment made in one copy is not in the next."""
    trust = '{"Version": "2012-10-17", "Statement": []}'
    environment = EmulatorNeeds(iam_managed_policies=True).environment()
    with Emulator(1, env=environment, services=["iam"]) as emulator:
        assert emulator.root is not None
        seat = emulator.seats[0]
        iam = boto3.client("iam", endpoint_url=seat.endpoint_url, region_name="us-east-1")
        for _ in range(2):
            copy = emulator.root.fork(seat)
            assert iam.get_policy(PolicyArn=MANAGED)["Policy"]["AttachmentCount"] == 0
            iam.create_role(RoleName="r", AssumeRolePolicyDocument=trust)
            iam.attach_role_policy(RoleName="r", PolicyArn=MANAGED)
            assert iam.get_policy(PolicyArn=MANAGED)["Policy"]["AttachmentCount"] == 1
            copy.close()
