"""Comparisons by meaning found in the kit's service modules: a secret's rotation schedule, load balancer names in
any case, an S3 Bucket Key."""

from __future__ import annotations

import pytest

from harness.kit import elbv2, s3, secretsmanager
from tests.kit.conftest import described, passes, unique


@pytest.mark.parametrize(
    ("rules", "every_30_days"),
    [
        ({"AutomaticallyAfterDays": 30}, True),
        ({"ScheduleExpression": "rate(30 days)"}, True),
        ({"ScheduleExpression": "rate(720 hours)"}, True),
        ({"ScheduleExpression": "rate(43200 minutes)"}, True),
        ({"ScheduleExpression": "rate(29 days)"}, False),
        ({"ScheduleExpression": "cron(0 0 1 * ? *)"}, False),  # monthly: 28 to 31 days apart
        ({"ScheduleExpression": "not a schedule"}, False),
    ],
)
def test_a_rotation_schedule_by_when_it_fires(rules: dict, every_30_days: bool) -> None:
    secret = {"Name": "db", "RotationEnabled": True, "RotationRules": rules}
    assert passes(secretsmanager.rotation(30), secret) is every_30_days
    assert passes(secretsmanager.rotation(), secret)


def test_a_weekly_cron_rotation_is_every_seven_days() -> None:
    secret = {"RotationEnabled": True, "RotationRules": {"ScheduleExpression": "cron(0 4 ? * SUN *)"}}
    assert passes(secretsmanager.rotation(7), secret)
    assert not passes(secretsmanager.rotation(14), secret)


@pytest.mark.parametrize(
    ("requirement", "resource"),
    [
        (elbv2.protocol("http"), {"Protocol": "HTTP"}),
        (elbv2.lb_type("Application"), {"Type": "application"}),
        (elbv2.scheme("Internet-Facing"), {"Scheme": "internet-facing"}),
    ],
)
def test_load_balancer_names_in_any_case(requirement, resource: dict) -> None:
    assert passes(requirement, resource)
    assert not passes(requirement, {key: "other" for key in resource})


def test_an_s3_bucket_key(aws_session) -> None:
    client = aws_session.client("s3")
    with_key, without_key, plain = (unique("media") for _ in range(3))
    for name in (with_key, without_key, plain):
        client.create_bucket(Bucket=name)
    for name, enabled in ((with_key, True), (without_key, False)):
        rule = {"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms"}, "BucketKeyEnabled": enabled}
        client.put_bucket_encryption(Bucket=name, ServerSideEncryptionConfiguration={"Rules": [rule]})
    assert passes(s3.bucket_key(), described(s3.BUCKET, aws_session, with_key))
    assert not passes(s3.bucket_key(), described(s3.BUCKET, aws_session, without_key))
    assert passes(s3.bucket_key(False), described(s3.BUCKET, aws_session, plain))
    assert passes(s3.encrypted("aws:kms"), described(s3.BUCKET, aws_session, with_key))
