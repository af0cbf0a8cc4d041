"""IAM wildcards in a Resource read as AWS reads them when least privilege is judged: a secret's ARN ends with a
random 6-character suffix, and `NAME-??????` (the form AWS recommends) names that secret and no other."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.kit import iam, secretsmanager
from harness.kit.globs import iam_glob, matches
from harness.kit.identity import named_by
from tests.kit.conftest import described, passes, unique

PREFIX = "arn:aws:secretsmanager:us-east-1:123456789012:secret:"
READ = ["secretsmanager:GetSecretValue"]
names = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/_+=.@-", min_size=1, max_size=24)
suffixes = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=6, max_size=6)


def role_with(resource: Any) -> dict[str, Any]:
    """A described role (as the kit reads one) whose one inline policy allows reading `resource`."""
    statement = {"Effect": "Allow", "Action": READ, "Resource": resource}
    return {"Policies": [('inline policy "secret"', json.dumps({"Version": "2012-10-17", "Statement": [statement]}))]}


def judged(secret_arn: str, resource: Any) -> bool:
    return iam.may_exactly(iam.grant(READ, [secret_arn])).evaluate(role_with(resource)).ok


@settings(max_examples=60, deadline=None)
@given(name=names, suffix=suffixes)
def test_the_secret_passes_in_each_form_aws_accepts(name: str, suffix: str) -> None:
    arn = f"{PREFIX}{name}-{suffix}"
    assert judged(arn, arn)
    assert judged(arn, f"{PREFIX}{name}-??????")
    assert judged(arn, [arn, f"{PREFIX}{name}-??????"])


@settings(max_examples=60, deadline=None)
@given(name=names, suffix=suffixes)
def test_a_wider_or_other_resource_fails(name: str, suffix: str) -> None:
    arn = f"{PREFIX}{name}-{suffix}"
    for wider in (f"{PREFIX}{name}-*", f"{PREFIX}{name}*", f"{PREFIX}*", "*", f"{PREFIX}{name}-???????*"):
        assert not judged(arn, wider), wider  # reaches other secrets (or grants too little)
    assert not judged(arn, f"{PREFIX}{name}x-??????")  # another secret: the asked one is not granted
    assert not judged(arn, f"{PREFIX}{name}-?????")  # five: matches no ARN of this secret


@settings(max_examples=100, deadline=None)
@given(name=names, other=names, suffix=suffixes, other_suffix=suffixes)
def test_name_and_six_marks_match_only_that_secrets_arns(name: str, other: str, suffix: str, other_suffix: str) -> None:
    patterns = [iam_glob(p) for p in named_by(f"{PREFIX}{name}-{suffix}")]
    assert any(matches(p, f"{PREFIX}{name}-{other_suffix}") for p in patterns)  # the secret, recreated
    assert not any(matches(p, f"{PREFIX}{other}-{other_suffix}") for p in patterns) or other == name


def test_named_by_leaves_other_resources_alone() -> None:
    table = "arn:aws:dynamodb:us-east-1:123456789012:table/orders-abc123"
    assert named_by(table) == (table,)
    assert named_by("*") == ("*",)
    assert named_by(f"{PREFIX}orders/*") == (f"{PREFIX}orders/*",)


@pytest.mark.moto
def test_a_role_reading_its_secret_by_the_recommended_pattern_passes_on_moto(aws_session) -> None:
    name = unique("orders/db")
    secret = aws_session.client("secretsmanager").create_secret(Name=name, SecretString="pw")["ARN"]
    client = aws_session.client("iam")
    role = unique("reader")
    client.create_role(
        RoleName=role,
        AssumeRolePolicyDocument=json.dumps(
            {
                "Statement": [
                    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
                ]
            }
        ),
    )
    pattern = secret[: -len("-XXXXXX")] + "-??????"
    statement = {"Effect": "Allow", "Action": READ, "Resource": pattern}
    client.put_role_policy(
        RoleName=role,
        PolicyName="secret",
        PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [statement]}),
    )
    described_secret = described(secretsmanager.SECRET, aws_session, secret)
    assert passes(
        iam.may_exactly(iam.grant(READ, [described_secret], key="ARN")), described(iam.ROLE, aws_session, role)
    )
