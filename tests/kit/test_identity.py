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


def test_an_index_beside_the_table_is_no_extra_for_actions_on_tables_only() -> None:
    """#30: PutItem and UpdateItem act on tables only (the Service Authorization Reference), so `table/T/index/*`
    beside the table grants them nothing more; Query, which acts on indexes too, is judged on both."""
    index = f"{TABLE}/index/*"
    actions = ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:Query"]
    policies = held(statement(action=actions, resource=[TABLE, index]))
    asked = {"dynamodb:PutItem": [TABLE], "dynamodb:UpdateItem": [TABLE], "dynamodb:Query": [TABLE, index]}
    assert extra_permissions(policies, asked) == []
    assert extra_permissions(policies, {**asked, "dynamodb:Query": [TABLE]}) == [
        Extra("dynamodb:Query", (TABLE, index))
    ]
    assert not reaches("dynamodb:PutItem", f"{TABLE}/index/by-date")
    assert reaches("dynamodb:Query", f"{TABLE}/index/by-date")


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


# --- the resources an action can be requested on ----------------------------------------------------------------

GROUP = "arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/orders"
STREAMS = f"{GROUP}:log-stream:*"
WRITE_LOGS = {"logs:CreateLogStream": [STREAMS], "logs:PutLogEvents": [STREAMS]}


def test_a_log_group_grant_is_exactly_its_streams_for_the_write_actions() -> None:
    policies = held(statement(action=["logs:CreateLogStream", "logs:PutLogEvents"], resource=f"{GROUP}:*"))
    assert extra_permissions(policies, WRITE_LOGS) == []
    assert reaches("logs:PutLogEvents", f"{GROUP}:log-stream:today")
    assert not reaches("logs:PutLogEvents", f"{GROUP}:x:log-stream:today")  # a group name holds no colon
    assert not reaches("logs:PutLogEvents", TABLE) and not reaches("logs:PutLogEvents", "*")


def test_a_wildcard_action_is_named_with_the_actions_it_reaches_on_the_resource() -> None:
    extras = extra_permissions(held(statement(action="logs:Put*", resource=f"{GROUP}:*")), WRITE_LOGS)
    names = {e.action for e in extras}
    assert {"logs:PutRetentionPolicy", "logs:PutDataProtectionPolicy"} <= names
    assert "logs:PutLogEvents" not in names
    assert "logs:PutDestination" not in names  # a destination, not a log group: the grant does not reach it
    assert {(e.source, e.via) for e in extras} == {('inline policy "app"', "logs:Put*")}


def test_a_wildcard_resource_is_wider_than_the_asked_streams() -> None:
    groups = "arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/*"
    extras = extra_permissions(held(statement(action=list(WRITE_LOGS), resource=groups)), WRITE_LOGS)
    assert extras == [Extra("logs:CreateLogStream", (groups,)), Extra("logs:PutLogEvents", (groups,))]


def test_an_action_requested_on_star_is_granted_only_by_a_star_resource() -> None:
    scoped = held(statement(action=[*WRITE_LOGS, "logs:DescribeLogGroups"], resource=f"{GROUP}:*"))
    assert extra_permissions(scoped, WRITE_LOGS) == []
    anywhere = held(statement(action=list(WRITE_LOGS), resource=f"{GROUP}:*"),
                    statement(action="logs:DescribeLogGroups", resource="*"))  # fmt: skip
    assert extra_permissions(anywhere, WRITE_LOGS) == [Extra("logs:DescribeLogGroups")]


def test_not_resource_grants_everything_the_action_reaches_but_the_named() -> None:
    other = "arn:aws:logs:us-east-1:123456789012:log-group:other:*"
    policies = held({"Effect": "Allow", "Action": "logs:PutLogEvents", "NotResource": other},
                    statement(action="logs:CreateLogStream", resource=f"{GROUP}:*"))  # fmt: skip
    assert extra_permissions(policies, WRITE_LOGS) == [Extra("logs:PutLogEvents", (f"NOT {other}",))]
    exact = held({"Effect": "Allow", "Action": list(WRITE_LOGS), "NotResource": "*"})
    assert extra_permissions(exact, WRITE_LOGS) == []


def test_not_action_reaches_only_actions_that_can_be_requested_on_its_resources() -> None:
    """NotAction on a log group's ARNs grants no DynamoDB action: none can be requested on a log group (AWS Backup's
    recovery-point actions can: their ARN format takes any service's resource)."""
    on_the_group = held({"Effect": "Allow", "NotAction": "logs:Delete*", "Resource": f"{GROUP}:*"})
    extras = extra_permissions(on_the_group, WRITE_LOGS)
    assert {e.action.split(":")[0] for e in extras} == {"logs", "backup"}
    assert {e.via for e in extras} == {"NotAction logs:Delete*"}
    assert not any(e.action.startswith("logs:Delete") for e in extras)
    everywhere = extra_permissions(held({"Effect": "Allow", "NotAction": "logs:*", "Resource": "*"}), WRITE_LOGS)
    assert Extra("dynamodb:PutItem") in everywhere


def test_a_deny_and_a_condition_on_log_actions() -> None:
    policies = held(
        statement(action="logs:*", resource=f"{GROUP}:*"),
        {"Effect": "Deny", "NotAction": list(WRITE_LOGS), "Resource": "*"},
    )
    assert extra_permissions(policies, WRITE_LOGS) == []
    conditional = held(
        statement(action=list(WRITE_LOGS), resource=f"{GROUP}:*"),
        statement(
            action="logs:DeleteLogGroup", resource=f"{GROUP}:*", Condition={"Bool": {"aws:ViaAWSService": "true"}}
        ),
    )
    assert extra_permissions(conditional, WRITE_LOGS) == [Extra("logs:DeleteLogGroup", (), True)]


def test_the_old_name_of_an_access_verdict_still_answers_with_a_warning_naming_the_new_one() -> None:
    from harness.kit import identity

    with pytest.warns(DeprecationWarning, match=r"harness\.kit\.identity\.AccessVerdict"):
        assert identity.Verdict is identity.AccessVerdict
    assert decide([], "s3:GetObject").decision == "not allowed"  # the renamed class is what decide answers
    assert isinstance(decide([], "s3:GetObject"), identity.AccessVerdict)
