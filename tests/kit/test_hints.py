"""Hints a learner can act on: the expected reference in the spelling the learner used, "detach" for an AWS
managed policy that grants too much (one cannot edit it), and the AWS managed policy that grants missing log
permissions where it grants nothing beyond what the step asks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from harness.kit import iam, kms, secretsmanager
from tests.kit.conftest import described, miss, unique

pytestmark = pytest.mark.moto

LOGS = ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]
READ = ["secretsmanager:GetSecretValue"]
TRUST = {
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]
}
AWS_POLICY = "arn:aws:iam::aws:policy/"


@pytest.fixture(scope="module")
def managed() -> Iterator[boto3.Session]:
    """An account whose IAM holds the AWS managed policies, as a lab with `iam_managed_policies: true` has."""
    with mock_aws(config={"iam": {"load_aws_managed_policies": True}}):
        yield boto3.Session(region_name="us-east-1")


def role(session: Any, *, attach: tuple[str, ...] = (), inline: dict[str, Any] | None = None) -> tuple[str, Any]:
    client = session.client("iam")
    name = unique("worker")
    client.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))
    for arn in attach:
        client.attach_role_policy(RoleName=name, PolicyArn=arn)
    if inline:
        document = json.dumps({"Version": "2012-10-17", "Statement": [inline]})
        client.put_role_policy(RoleName=name, PolicyName="secret", PolicyDocument=document)
    return name, described(iam.ROLE, session, name)


def secret_arn(session: Any) -> str:
    return session.client("secretsmanager").create_secret(Name=unique("orders/db"), SecretString="pw")["ARN"]


def test_an_aws_managed_policy_that_grants_too_much_is_to_be_detached(managed) -> None:
    secret = secret_arn(managed)
    basic = f"{AWS_POLICY}service-role/AWSLambdaBasicExecutionRole"
    name, found = role(managed, attach=(basic, f"{AWS_POLICY}SecretsManagerReadWrite"))
    requirement = iam.may_exactly(iam.grant(LOGS), iam.grant(READ, [secret]))
    assert "(AWS managed policy SecretsManagerReadWrite (statement" in miss(requirement, iam.ROLE, name, found)
    assert requirement.evaluate(found).hint == (
        "Detach the AWS managed policy SecretsManagerReadWrite (an AWS managed policy cannot be edited): grant "
        "only what the step names instead."
    )


def test_missing_log_permissions_name_the_managed_policy_that_grants_them(managed) -> None:
    secret = secret_arn(managed)
    _, found = role(managed, inline={"Effect": "Allow", "Action": READ, "Resource": secret})
    requirement = iam.may_exactly(iam.grant(LOGS), iam.grant(READ, [secret]))
    assert requirement.evaluate(found).hint == (
        "Attach the AWS managed policy AWSLambdaBasicExecutionRole (it grants logs:CreateLogGroup, "
        "logs:CreateLogStream, logs:PutLogEvents on *)."
    )
    streams = "arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/orders:*"
    narrow = iam.may_exactly(iam.grant(LOGS[1:], [streams]), iam.grant(READ, [secret]))  # on * it would reach further
    assert narrow.evaluate(found).hint == f"Grant logs:CreateLogStream on {streams} in a policy of the identity."


def test_the_expected_key_is_shown_as_the_learner_spelt_theirs(aws_session) -> None:
    client = aws_session.client("kms")
    keys = {}
    for label in ("orders", "other"):
        key_id = client.create_key()["KeyMetadata"]["KeyId"]
        client.create_alias(AliasName=f"alias/{unique(label)}", TargetKeyId=key_id)
        keys[label] = described(kms.KEY, aws_session, key_id)
    orders, other = keys["orders"], keys["other"]
    secrets = aws_session.client("secretsmanager")
    for spelled, shown in (
        (other["Aliases"][0], orders["Aliases"][0]),
        (other["KeyId"], orders["KeyId"]),
    ):
        arn = secrets.create_secret(Name=unique("db"), SecretString="x", KmsKeyId=spelled)["ARN"]
        secret = described(secretsmanager.SECRET, aws_session, arn)
        assert miss(secretsmanager.encrypted_with(orders), secretsmanager.SECRET, arn, secret).endswith(
            f"KMS key should be {shown} ({orders['Arn']}), but is {spelled}."
        )
    arn = secrets.create_secret(Name=unique("db"), SecretString="x", KmsKeyId=other["Arn"])["ARN"]
    secret = described(secretsmanager.SECRET, aws_session, arn)
    assert miss(secretsmanager.encrypted_with(orders), secretsmanager.SECRET, arn, secret).endswith(
        f"KMS key should be {orders['Arn']}, but is {other['Arn']}."
    )
