"""Secrets Manager validators: the secret's metadata (rotation, KMS key, description). Id = the secret's ARN.

Only DescribeSecret is called: an evaluation never reads a secret's value (the harness refuses GetSecretValue)."""

from __future__ import annotations

from typing import Any

from harness.kit.kinds import Kind, Resource, id_of, register
from harness.kit.require import Requirement, require


def _fetch_secret(session: Any, secret_id: str) -> Resource | None:
    secret = session.client("secretsmanager").describe_secret(SecretId=secret_id)
    if secret.get("DeletedDate"):  # scheduled for deletion: gone, as far as the lab is concerned
        return None
    return secret


SECRET = register(Kind("AWS::SecretsManager::Secret", "secret", _fetch_secret))


def rotation(days: int | None = None) -> Requirement:
    """Rotation is enabled (every `days` days, if given)."""
    wanted = f"every {days} days" if days else "enabled"

    def actual(secret: Resource) -> str:
        if not secret.get("RotationEnabled"):
            return "disabled"
        every = (secret.get("RotationRules") or {}).get("AutomaticallyAfterDays")
        return f"every {every} days" if days else "enabled"

    return require("rotation", wanted, actual, hint="Turn on automatic rotation for the secret.")


def rotated_by(function: Resource | str | None) -> Requirement:
    """Rotated by the Lambda function (a described function or its ARN)."""
    return require("rotation function", id_of(function, "FunctionArn"), lambda s: s.get("RotationLambdaARN"))


def encrypted_with(key: Resource | str | None) -> Requirement:
    """Encrypted with the KMS key (a described key, its id or ARN), not the default aws/secretsmanager key."""
    wanted = str(id_of(key, "Arn"))
    return require(
        "KMS key",
        wanted,
        lambda s: s.get("KmsKeyId") or "aws/secretsmanager",
        compare=lambda actual, expected: actual == expected or actual.endswith(f"/{expected}"),
    )
