"""Secrets Manager validators: the secret's metadata (rotation, KMS key, description). Id = the secret's ARN.

Only DescribeSecret (and GetResourcePolicy, when a requirement reads the policy) is called: an evaluation never
reads a secret's value (the harness refuses GetSecretValue)."""

from __future__ import annotations

import re
from typing import Any

from harness.kit import kms, refs, schedules
from harness.kit.kinds import Kind, LazyResource, Resource, register
from harness.kit.later import later
from harness.kit.require import Requirement, require

DEFAULT_KEY = "alias/aws/secretsmanager"
"""The AWS managed key a secret is encrypted with when none is chosen."""


def _fetch_secret(session: Any, secret_id: str) -> Resource | None:
    client = session.client("secretsmanager")
    secret = client.describe_secret(SecretId=secret_id)
    if secret.get("DeletedDate"):  # scheduled for deletion: gone, as far as the lab is concerned
        return None
    return LazyResource(
        secret, {"ResourcePolicy": lambda: client.get_resource_policy(SecretId=secret["ARN"]).get("ResourcePolicy")}
    )


SECRET = register(
    Kind("AWS::SecretsManager::Secret", "secret", _fetch_secret, naming="{noun} {name}", title=lambda s: s.get("Name"))
)
"""`describe_secret`'s secret (`Name`, `ARN`, `KmsKeyId`, `Description`, `RotationEnabled`, `RotationLambdaARN`,
`RotationRules`: `{"AutomaticallyAfterDays" | "ScheduleExpression"}`) plus `ResourcePolicy` (JSON text or None),
read when first used."""


def _rotation_days(rules: dict[str, Any]) -> int | None:
    """Days between rotations: `AutomaticallyAfterDays`, or a rate schedule in whole days (`rate(30 days)`,
    `rate(720 hours)`)."""
    if rules.get("AutomaticallyAfterDays"):
        return int(rules["AutomaticallyAfterDays"])
    schedule = _schedule(rules)
    if isinstance(schedule, schedules.Rate) and schedule.minutes % 1440 == 0:
        return schedule.minutes // 1440
    return None


def _schedule(rules: dict[str, Any]) -> schedules.Schedule | None:
    try:
        return schedules.parse(rules["ScheduleExpression"]) if rules.get("ScheduleExpression") else None
    except schedules.ScheduleError:
        return None


def rotation(days: int | None = None) -> Requirement:
    """Rotation is enabled (every `days` days, if given: `AutomaticallyAfterDays`, or a schedule expression that
    fires every `days` days: `rate(30 days)`, `rate(720 hours)`, a cron that fires once every `days` days)."""
    wanted = f"every {days} days" if days else "enabled"

    def actual(secret: Resource) -> str:
        if not secret.get("RotationEnabled"):
            return "disabled"
        rules = secret.get("RotationRules") or {}
        if not days:
            return "enabled"
        every = _rotation_days(rules)
        schedule = _schedule(rules)
        if every is None and schedule is not None and schedules.same_firing(schedule, schedules.Rate(days * 1440)):
            every = days
        return f"every {every} days" if every else f"on the schedule {rules.get('ScheduleExpression')}"

    return require("rotation", wanted, actual, hint="Turn on automatic rotation for the secret.")


@later
def rotated_by(function: Resource | str | None) -> Requirement:
    """Rotated by the Lambda function (a described function, its name or ARN)."""
    return refs.refers("rotation function", refs.FUNCTION, function, lambda s: s.get("RotationLambdaARN"))


@later
def encrypted_with(key: Resource | str | None) -> Requirement:
    """Encrypted with the KMS key: a described key, its id or ARN, an alias or alias ARN, whichever the secret
    was given (`alias/aws/secretsmanager` is the AWS managed key a secret gets when none is chosen)."""
    return refs.refers("KMS key", kms.KEY_REFERENCE, key, lambda s: s.get("KmsKeyId") or DEFAULT_KEY)


# --- ARNs --------------------------------------------------------------------------------------------------------


_SECRET_SUFFIX = re.compile(r"-[A-Za-z0-9]{6}$")


def _secret_arn(resource: str) -> refs.ArnPart | None:
    """`secret:NAME-SUFFIX`: the name, without the six characters Secrets Manager adds."""
    kind, _, rest = refs.split_resource(resource)
    return (kind, _SECRET_SUFFIX.sub("", rest), None) if kind == "secret" else None


refs.reads_arns("secretsmanager", _secret_arn)
