"""KMS and Secrets Manager kinds on moto; a secret is described, never read."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from harness.kit import kms, rds, secretsmanager
from harness.kit.aws import fetch_or_none
from harness.kit.kinds import short_name
from tests.kit.conftest import described, miss, passes, unique

pytestmark = pytest.mark.process  # moto runs the rotation function: it probes for docker in a shell


def test_key_rotation_and_alias(aws_session) -> None:
    client = aws_session.client("kms")
    key_id = client.create_key(Description="lab")["KeyMetadata"]["KeyId"]
    alias = f"alias/{unique('orders')}"
    client.create_alias(AliasName=alias, TargetKeyId=key_id)
    key = described(kms.KEY, aws_session, key_id)
    for requirement in (kms.usable(), kms.spec(), kms.usage(), kms.customer_managed(), kms.has_alias(alias)):
        assert passes(requirement, key), requirement.check
    assert miss(kms.rotation_enabled(), kms.KEY, key_id, key) == (
        f"KMS key {key_id}: automatic rotation should be enabled, but is disabled."
    )
    client.enable_key_rotation(KeyId=key_id)
    assert passes(kms.rotation_enabled(), described(kms.KEY, aws_session, key_id))
    assert passes(kms.points_to(key_id), described(kms.ALIAS, aws_session, alias))


def test_a_disabled_key_is_named(aws_session) -> None:
    client = aws_session.client("kms")
    key_id = client.create_key()["KeyMetadata"]["KeyId"]
    client.disable_key(KeyId=key_id)
    assert miss(kms.usable(), kms.KEY, key_id, described(kms.KEY, aws_session, key_id)) == (
        f"KMS key {key_id}: key state should be Enabled, but is Disabled."
    )


def test_secret_rotation_and_key(aws_session) -> None:
    client = aws_session.client("secretsmanager")
    key_arn = aws_session.client("kms").create_key()["KeyMetadata"]["Arn"]
    arn = client.create_secret(Name=unique("db"), SecretString="s3cr3t", KmsKeyId=key_arn)["ARN"]
    secret = described(secretsmanager.SECRET, aws_session, arn)
    assert passes(secretsmanager.encrypted_with(key_arn), secret)
    assert miss(secretsmanager.rotation(30), secretsmanager.SECRET, arn, secret) == (
        f"Secret {short_name(arn)}: rotation should be every 30 days, but is disabled."
    )
    assert "s3cr3t" not in repr(dict(secret))


def test_the_default_key_is_not_the_asked_one(aws_session) -> None:
    key_arn = aws_session.client("kms").create_key()["KeyMetadata"]["Arn"]
    arn = aws_session.client("secretsmanager").create_secret(Name=unique("db"), SecretString="x")["ARN"]
    assert miss(
        secretsmanager.encrypted_with(key_arn),
        secretsmanager.SECRET,
        arn,
        described(secretsmanager.SECRET, aws_session, arn),
    ) == (f"Secret {short_name(arn)}: KMS key should be {key_arn}, but is alias/aws/secretsmanager.")


def test_a_secret_scheduled_for_deletion_is_gone(aws_session) -> None:
    client = aws_session.client("secretsmanager")
    arn = client.create_secret(Name=unique("db"), SecretString="x")["ARN"]
    client.delete_secret(SecretId=arn, RecoveryWindowInDays=7)
    assert fetch_or_none(lambda: secretsmanager.SECRET.fetch(aws_session, arn)) is None


def test_secret_rotated_by_a_function(aws_session) -> None:
    trust = {
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]
    }
    role = aws_session.client("iam").create_role(RoleName=unique("rotator"), AssumeRolePolicyDocument=json.dumps(trust))
    function_arn = aws_session.client("lambda").create_function(
        FunctionName=unique("rotate"),
        Runtime="python3.12",
        Handler="app.handler",
        Role=role["Role"]["Arn"],
        Code={"ZipFile": zipped("def handler(event, context):\n    return None\n")},
    )["FunctionArn"]
    client = aws_session.client("secretsmanager")
    arn = client.create_secret(Name=unique("db"), SecretString="x")["ARN"]
    client.rotate_secret(
        SecretId=arn,
        RotationLambdaARN=function_arn,
        RotationRules={"AutomaticallyAfterDays": 30},
        RotateImmediately=False,
    )
    secret = described(secretsmanager.SECRET, aws_session, arn)
    assert passes(secretsmanager.rotation(30), secret)
    assert passes(secretsmanager.rotated_by(function_arn), secret)
    assert miss(secretsmanager.rotated_by(function_arn + "-other"), secretsmanager.SECRET, arn, secret) == (
        f"Secret {short_name(arn)}: rotation function should be {function_arn}-other, but is {function_arn}."
    )


def zipped(source: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", source)
    return buffer.getvalue()


def test_a_key_is_named_by_its_aliases_and_a_secret_by_its_name(aws_session) -> None:
    """A learner reaches a key through its alias and names a secret without the suffix its ARN carries: sentences
    name them so (`KMS key alias/orders (1234...)`, `secret orders/db-password`)."""
    client = aws_session.client("kms")
    key_id = client.create_key()["KeyMetadata"]["KeyId"]
    assert kms.KEY.describe(key_id, described(kms.KEY, aws_session, key_id)) == f"KMS key {key_id}"
    alias = f"alias/{unique('orders')}"
    client.create_alias(AliasName=alias, TargetKeyId=key_id)
    assert kms.KEY.describe(key_id, described(kms.KEY, aws_session, key_id)) == f"KMS key {alias} ({key_id})"
    name = f"{unique('orders')}/db-password"
    arn = aws_session.client("secretsmanager").create_secret(Name=name, SecretString="x")["ARN"]
    assert short_name(arn) != name.rsplit("/", 1)[-1]  # the ARN's last part carries AWS's random suffix
    assert secretsmanager.SECRET.describe(arn, described(secretsmanager.SECRET, aws_session, arn)) == f"secret {name}"


def test_an_instance_on_the_default_key_says_so(aws_session) -> None:
    """Encrypted with no key chosen, an instance is on the AWS managed key aws/rds: said so, never a placeholder."""
    identifier = unique("db")
    aws_session.client("rds").create_db_instance(
        DBInstanceIdentifier=identifier, Engine="postgres", DBInstanceClass="db.t3.micro", AllocatedStorage=20,
        MasterUsername="admin1", MasterUserPassword="password123", StorageEncrypted=True,
    )  # fmt: skip
    key_id = aws_session.client("kms").create_key()["KeyMetadata"]["KeyId"]
    db = described(rds.DB_INSTANCE, aws_session, identifier)
    assert miss(rds.encrypted_with(key_id), rds.DB_INSTANCE, identifier, db) == (
        f"DB instance {identifier}: KMS key should be {key_id}, but is {rds.DEFAULT_KEY}."
    )
