"""Identity-policy evaluation: explicit Deny wins, an Allow is needed, Conditions are undecided, and what else an
identity may do is named action by action."""

from __future__ import annotations

from typing import Any

import pytest

from harness.kit.identity import Extra, actions_of, decide, extra_permissions, reaches, sources
from harness.kit.policy import PolicyError, parse_policy

TABLE = "arn:aws:dynamodb:us-east-1:123456789012:table/orders"
OTHER_TABLE = "arn:aws:dynamodb:us-east-1:123456789012:table/users"


def statement(effect: str = "Allow", action: Any = "dynamodb:PutItem", resource: Any = TABLE, **more: Any) -> dict:
    return {"Effect": effect, "Action": action, "Resource": resource, **more}


def held(*statements: dict, name: str = 'inline policy "app"') -> list:
    parsed, invalid = sources([(name, {"Version": "2012-10-17", "Statement": list(statements)})])
    assert not invalid
    return parsed


def test_an_allow_grants_the_action_on_the_resource() -> None:
    verdict = decide(held(statement(Sid="Write")), "dynamodb:PutItem", TABLE)
    assert verdict.decision == "allowed"
    assert verdict.reason == f'inline policy "app" (statement "Write") allows dynamodb:PutItem on {TABLE}'


def test_no_allow_means_not_allowed() -> None:
    assert decide(held(statement()), "dynamodb:GetItem", TABLE).decision == "not allowed"
    assert decide(held(statement()), "dynamodb:PutItem", OTHER_TABLE).decision == "not allowed"


def test_an_explicit_deny_in_any_policy_wins() -> None:
    policies = held(statement(action="dynamodb:*")) + held(
        statement("Deny", "dynamodb:Put*", "*"), name="managed policy NoWrites"
    )
    verdict = decide(policies, "dynamodb:PutItem", TABLE)
    assert (verdict.decision, verdict.reason) == (
        "denied",
        f"managed policy NoWrites denies dynamodb:PutItem on {TABLE}",
    )


def test_actions_match_case_insensitively_and_with_wildcards() -> None:
    assert decide(held(statement(action="DynamoDB:put*")), "dynamodb:PutItem", TABLE).allowed
    assert decide(held(statement(action="dynamodb:?utItem")), "dynamodb:PutItem", TABLE).allowed


def test_resources_match_case_sensitively() -> None:
    assert not decide(held(statement(resource=TABLE.upper())), "dynamodb:PutItem", TABLE).allowed


def test_not_action_allows_everything_else() -> None:
    policies = held({"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"})
    assert decide(policies, "dynamodb:PutItem", TABLE).allowed
    assert decide(policies, "iam:CreateUser", "*").decision == "not allowed"


def test_not_resource_allows_everything_but_the_resource() -> None:
    policies = held({"Effect": "Allow", "Action": "dynamodb:*", "NotResource": OTHER_TABLE})
    assert decide(policies, "dynamodb:PutItem", TABLE).allowed
    assert decide(policies, "dynamodb:PutItem", OTHER_TABLE).decision == "not allowed"


def test_a_conditional_allow_is_undecided_not_guessed() -> None:
    conditional = statement(Condition={"StringEquals": {"aws:RequestedRegion": "eu-west-1"}})
    verdict = decide(held(conditional), "dynamodb:PutItem", TABLE)
    assert (verdict.decision, verdict.reason) == (
        "undecided",
        'inline policy "app" allows dynamodb:PutItem only under a Condition',
    )


def test_a_conditional_deny_makes_an_allow_undecided() -> None:
    deny = statement("Deny", resource="*", Condition={"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}})
    assert decide(held(statement(), deny), "dynamodb:PutItem", TABLE).decision == "undecided"
    assert decide(held(deny), "dynamodb:PutItem", TABLE).decision == "not allowed"


def test_the_enforce_https_deny_never_applies_to_sdk_calls() -> None:
    tls = statement("Deny", "*", "*", Condition={"Bool": {"aws:SecureTransport": "false"}})
    assert decide(held(statement(), tls), "dynamodb:PutItem", TABLE).allowed


def test_an_invalid_policy_is_named() -> None:
    parsed, invalid = sources([('inline policy "bad"', {"Statement": [statement(Principal="*")]})])
    assert parsed == []
    assert invalid == [
        'inline policy "bad" is not a valid policy (statement 1: an identity policy has no "Principal" element)'
    ]


@pytest.mark.parametrize(
    ("kind", "document", "message"),
    [
        ("identity", {"Statement": [statement(Principal="*")]}, 'an identity policy has no "Principal" element'),
        ("trust", {"Statement": [statement(Principal="*")]}, 'a trust policy has no "Resource" element'),
        ("resource", {"Statement": [statement()]}, 'exactly one of "Principal" and "NotPrincipal"'),
    ],
)
def test_each_kind_of_policy_is_parsed_as_aws_would(kind: str, document: dict, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        parse_policy(document, kind=kind)  # type: ignore[arg-type]


def test_a_trust_policy_needs_no_resource() -> None:
    trust = {
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]
    }
    (only,) = parse_policy(trust, kind="trust").statements
    assert only.principals == (("Service", "lambda.amazonaws.com"),)
    assert only.covers_resource("anything")


# --- what else it may do -----------------------------------------------------------------------------------------


def test_an_extra_action_is_named() -> None:
    policies = held(statement(action=["dynamodb:PutItem", "dynamodb:Query", "dynamodb:GetItem"]))
    assert extra_permissions(policies, {"dynamodb:PutItem": [TABLE], "dynamodb:Query": [TABLE]}) == [
        Extra("dynamodb:GetItem")
    ]


def test_exactly_the_asked_actions_leave_nothing_extra() -> None:
    policies = held(statement(action=["dynamodb:PutItem", "dynamodb:Query"]))
    assert extra_permissions(policies, {"dynamodb:PutItem": [TABLE], "dynamodb:Query": [TABLE]}) == []


def test_an_asked_action_on_more_resources_is_extra() -> None:
    policies = held(statement(resource="arn:aws:dynamodb:us-east-1:123456789012:table/*"))
    assert extra_permissions(policies, {"dynamodb:PutItem": [TABLE]}) == [
        Extra("dynamodb:PutItem", ("arn:aws:dynamodb:us-east-1:123456789012:table/*",))
    ]


def test_a_wildcard_names_every_action_it_reaches_from_the_catalog() -> None:
    extras = extra_permissions(held(statement(action="dynamodb:*")), {"dynamodb:PutItem": [TABLE]})
    names = {e.action for e in extras}
    assert {"dynamodb:GetItem", "dynamodb:DeleteTable", "dynamodb:Scan"} <= names
    assert "dynamodb:PutItem" not in names
    assert names == {a for a in actions_of("dynamodb") if reaches(a, TABLE)} - {"dynamodb:PutItem"}
    assert "dynamodb:ListTables" not in names  # requested on `*`, which a table's ARN does not match
    assert "dynamodb:GetShardIterator" not in names  # requested on a stream of the table, not the table


def test_a_denied_extra_is_not_extra() -> None:
    policies = held(
        statement(action="dynamodb:*"),
        {"Effect": "Deny", "NotAction": ["dynamodb:PutItem"], "Resource": "*"},
    )
    assert extra_permissions(policies, {"dynamodb:PutItem": [TABLE]}) == []


def test_a_conditional_extra_is_reported_as_such() -> None:
    policies = held(
        statement(),
        statement(action="s3:GetObject", resource="*", Condition={"Bool": {"aws:MultiFactorAuthPresent": "true"}}),
    )
    assert extra_permissions(policies, {"dynamodb:PutItem": [TABLE]}) == [Extra("s3:GetObject", (), True)]


def test_an_action_outside_the_catalog_is_still_named() -> None:
    policies = held(statement(action=["dynamodb:PutItem", "madeup:DoThing"], resource="*"))
    assert Extra("madeup:DoThing") in extra_permissions(policies, {"dynamodb:PutItem": ["*"]})
