"""harness.kit.access: IAM's evaluation of a resource policy, by its properties over generated policies (a Deny
always wins, order does not matter, an Allow never takes access away, NotPrincipal) and by the rules the docs
state (case of keys and values, IfExists, set operators, variables, special characters, principals)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.kit.access import ANONYMOUS, Request, condition_holds, evaluate
from harness.kit.policy import PolicyError
from tests.kit.policy_cases import OAI, OTHER, TARGETS, cases

QUEUE = "arn:aws:sqs:us-east-1:111111111111:orders"
ROLE = f"arn:aws:iam::{OTHER}:role/app"

seeds = st.integers(min_value=0, max_value=2**32 - 1)


def policy(*statements: dict[str, Any], version: str = "2012-10-17") -> dict[str, Any]:
    return {"Version": version, "Statement": list(statements)}


def allow(**more: Any) -> dict[str, Any]:
    return {"Effect": "Allow", "Principal": "*", "Action": "sqs:SendMessage", "Resource": QUEUE, **more}


def ask(document: dict[str, Any], principal: str = ROLE, resource: str = QUEUE, **context: Any) -> str:
    return evaluate(document, Request(principal, "sqs:SendMessage", resource, context)).outcome


def request_of(case: dict[str, Any]) -> Request:
    return Request(case["principal"], case["action"], case["resource"], case["context"])


@given(seeds)
def test_a_deny_for_everything_always_wins_and_is_named(seed: int) -> None:
    (case,) = cases(1, seed)
    deny = {"Sid": "Nothing", "Effect": "Deny", "Principal": "*", "Action": "*", "Resource": "*"}
    document = {**case["policy"], "Statement": [*case["policy"]["Statement"], deny]}
    decision = evaluate(document, request_of(case))
    assert decision.outcome == "denied"
    assert decision.statement is not None and decision.statement.effect == "Deny"
    if evaluate(case["policy"], request_of(case)).outcome != "denied":
        assert decision.label == 'statement "Nothing"'


@given(seeds)
def test_the_order_of_statements_does_not_matter(seed: int) -> None:
    (case,) = cases(1, seed)
    shuffled = list(case["policy"]["Statement"])
    random.Random(seed).shuffle(shuffled)
    assert (
        evaluate(case["policy"], request_of(case)).outcome
        == evaluate({**case["policy"], "Statement": shuffled}, request_of(case)).outcome
    )


@given(seeds)
def test_an_allow_never_takes_access_away_and_a_deny_never_gives_it(seed: int) -> None:
    (case,) = cases(1, seed)
    extra = cases(1, seed + 1)[0]["policy"]["Statement"][0]
    before = evaluate(case["policy"], request_of(case)).outcome
    after = evaluate({**case["policy"], "Statement": [*case["policy"]["Statement"], extra]}, request_of(case)).outcome
    if extra["Effect"] == "Allow":
        assert not (before == "allowed" and after != "allowed")
    else:
        assert not (before != "allowed" and after == "allowed")


@given(seeds)
def test_condition_keys_match_in_any_case(seed: int) -> None:
    (case,) = cases(1, seed)
    shouted = json.loads(json.dumps(case["policy"]))
    for statement in shouted["Statement"]:
        for tests in (statement.get("Condition") or {}).values():
            for key in list(tests):
                tests[key.upper()] = tests.pop(key)
    assert evaluate(shouted, request_of(case)).outcome == evaluate(case["policy"], request_of(case)).outcome


@given(st.sampled_from([ROLE, f"arn:aws:iam::{OTHER}:user/alice", OAI, ANONYMOUS, "events.amazonaws.com"]))
def test_not_principal_allows_everyone_but_those_named(principal: str) -> None:
    document = policy(
        {"Effect": "Allow", "NotPrincipal": {"AWS": OTHER}, "Action": "sqs:SendMessage", "Resource": QUEUE}
    )
    expected = "not allowed" if principal.startswith(f"arn:aws:iam::{OTHER}:") else "allowed"
    assert ask(document, principal) == expected


def test_principals() -> None:
    assert ask(policy(allow(Principal={"AWS": OTHER})), ROLE) == "allowed"  # an account is all of its principals
    assert ask(policy(allow(Principal={"AWS": f"arn:aws:iam::{OTHER}:root"})), ROLE) == "allowed"
    session = f"arn:aws:sts::{OTHER}:assumed-role/app/s1"
    assert ask(policy(allow(Principal={"AWS": ROLE})), session) == "allowed"  # a role's session is the role
    assert ask(policy(allow(Principal={"Service": "sns.amazonaws.com"})), "events.amazonaws.com") == "not allowed"
    assert ask(policy(allow(Principal={"AWS": "*"})), "events.amazonaws.com") == "allowed"
    canonical = "79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be"
    assert ask(policy(allow(Principal={"CanonicalUser": canonical})), canonical) == "allowed"
    assert ask(policy(allow(Principal={"CanonicalUser": canonical})), ANONYMOUS) == "not allowed"
    assert ask(policy(allow(Principal={"AWS": OAI})), OAI) == "allowed"
    assert ask(policy(allow(Principal={"AWS": ROLE})), ANONYMOUS) == "not allowed"


def test_actions_are_caseless_resources_are_not() -> None:
    assert ask(policy(allow(Action="SQS:send*"))) == "allowed"
    assert ask(policy(allow(Resource=QUEUE.upper()))) == "not allowed"
    assert ask(policy(allow(Resource="arn:aws:sqs:*:111111111111:orde?s"))) == "allowed"
    not_receive = {"Effect": "Allow", "Principal": "*", "NotAction": "sqs:Receive*", "Resource": QUEUE}
    assert ask(policy(not_receive)) == "allowed"
    assert evaluate(policy(not_receive), Request(ROLE, "sqs:ReceiveMessage", QUEUE)).outcome == "not allowed"


def test_policy_variables_and_special_characters() -> None:
    bucket = "arn:aws:s3:::site"
    home = policy(
        {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"{bucket}/${{aws:username}}/*"}
    )
    get = lambda resource, **context: evaluate(home, Request(ROLE, "s3:GetObject", resource, context)).outcome  # noqa: E731
    assert get(f"{bucket}/alice/x", **{"aws:username": "alice"}) == "allowed"
    assert get(f"{bucket}/bob/x", **{"aws:username": "alice"}) == "not allowed"
    assert get(f"{bucket}/alice/x") == "not allowed"  # the key is absent: the pattern matches nothing
    assert get(f"{bucket}/aXb/x", **{"aws:username": "a*b"}) == "not allowed"  # a value's * is no wildcard
    literal = policy({"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"{bucket}/a${{*}}b"})
    assert evaluate(literal, Request(ROLE, "s3:GetObject", f"{bucket}/a*b")).allowed
    assert not evaluate(literal, Request(ROLE, "s3:GetObject", f"{bucket}/axb")).allowed
    defaulted = policy(allow(Condition={"StringEquals": {"aws:PrincipalTag/team": "${aws:username, 'nobody'}"}}))
    assert ask(defaulted, **{"aws:PrincipalTag/team": "nobody"}) == "allowed"
    old = policy(allow(Condition={"StringEquals": {"aws:PrincipalTag/team": "${aws:username}"}}), version="2008-10-17")
    assert ask(old, **{"aws:PrincipalTag/team": "${aws:username}", "aws:username": "x"}) == "allowed"


def test_condition_operators() -> None:
    assert condition_holds("StringEquals", "a", ["a", "b"])
    assert not condition_holds("StringEquals", "A", ["a"])
    assert condition_holds("StringEqualsIgnoreCase", "A", ["a"])
    assert condition_holds("StringNotEquals", None, ["a"])  # a negated test holds on a missing key
    assert not condition_holds("StringEquals", None, ["a"])
    assert condition_holds("StringEqualsIfExists", None, ["a"])
    assert condition_holds("StringLike", "orders-dlq", ["orders-*"])
    assert condition_holds("ArnLike", "arn:aws:sns:us-east-1:1:t", ["arn:aws:sns:*:*:t"])
    assert not condition_holds("ArnLike", "arn:aws:sns:us-east-1:1:t", ["arn:aws:sns:*"])  # fields, one by one
    assert condition_holds("NumericLessThan", "5", ["10"]) and not condition_holds("NumericLessThan", "x", ["10"])
    assert condition_holds("DateGreaterThan", "2026-11-28T12:00:00Z", ["2026-01-01T00:00:00Z"])
    assert condition_holds("DateLessThan", "1600000000", ["2026-01-01T00:00:00Z"])  # epoch seconds
    assert condition_holds("Bool", "true", ["True"]) and not condition_holds("Bool", "false", ["true"])
    assert condition_holds("IpAddress", "203.0.113.7", ["203.0.113.0/24"])
    assert condition_holds("NotIpAddress", "2001:db8::1", ["203.0.113.0/24"])
    assert condition_holds("BinaryEquals", "QmluYXJ5", ["QmluYXJ5"])
    assert condition_holds("Null", None, ["true"]) and condition_holds("Null", "x", ["false"])
    assert condition_holds("ForAllValues:StringEquals", None, ["a"])  # vacuously
    assert condition_holds("ForAllValues:StringEquals", ("a", "b"), ["a", "b", "c"])
    assert not condition_holds("ForAllValues:StringEquals", ("a", "d"), ["a", "b"])
    assert condition_holds("ForAnyValue:StringEquals", ("a", "d"), ["a"])
    assert not condition_holds("ForAnyValue:StringEqualsIfExists", None, ["a"])  # ForAnyValue fails a missing key
    assert not condition_holds("StringEquals", ("a",), ["a"])  # a multi-valued key needs a set operator
    with pytest.raises(PolicyError):
        condition_holds("StringSortOf", "a", ["a"])


def test_a_decision_names_the_statement() -> None:
    document = policy(
        allow(Sid="FromTopic", Condition={"ArnEquals": {"aws:SourceArn": "arn:aws:sns:us-east-1:111111111111:t"}}),
        {
            "Effect": "Deny",
            "Principal": "*",
            "Action": "sqs:*",
            "Resource": "*",
            "Condition": {"Bool": {"aws:SecureTransport": "false"}},
        },
    )
    decision = evaluate(
        document, Request("sns.amazonaws.com", "sqs:SendMessage", QUEUE, {"aws:SecureTransport": "false"})
    )
    assert (decision.outcome, decision.label) == ("denied", "statement 2")
    decision = evaluate(
        document, Request("sns.amazonaws.com", "sqs:SendMessage", QUEUE, {"aws:SecureTransport": "true"})
    )
    assert decision.outcome == "not allowed"
    assert decision.reason == (
        'statement "FromTopic" allows sqs:SendMessage but has a Condition (ArnEquals aws:SourceArn) the request '
        "does not meet"
    )
    assert evaluate(policy(allow(Action="sqs:ReceiveMessage")), Request(ROLE, "sqs:SendMessage", QUEUE)).reason == (
        "statement 1 allows sqs:ReceiveMessage but does not cover sqs:SendMessage"
    )


def test_every_target_of_the_generator_is_asked() -> None:
    """The differential test's cases reach every kind of resource and all three outcomes."""
    generated = cases(2000, 7)
    assert {c["action"].split(":")[0] for c in generated} == {
        a.split(":")[0] for t in TARGETS.values() for acts in t["actions"].values() for a in acts
    }
    outcomes = {evaluate(c["policy"], request_of(c)).outcome for c in generated}
    assert outcomes == {"allowed", "denied", "not allowed"}


@pytest.mark.parametrize(
    ("condition", "says"),
    [
        ({"StringSortOf": {"aws:SourceArn": "x"}}, "unknown condition operator 'StringSortOf'"),
        ({"ForSomeValues:StringEquals": {"aws:TagKeys": "x"}}, "unknown condition operator"),
        ({"StringEquals": "x"}, "must map condition keys to values"),
        ({"StringEquals": {"aws:SourceArn": {"nested": 1}}}, "must be strings, numbers or booleans"),
    ],
)
def test_a_condition_aws_would_refuse_concludes_nothing(condition: dict[str, Any], says: str) -> None:
    with pytest.raises(PolicyError, match=says):
        evaluate(policy(allow(Condition=condition)), Request(ROLE, "sqs:SendMessage", QUEUE))


def test_the_generated_policies_use_every_element_and_operator() -> None:
    """What the differential test's 12,000 requests cover: each element, operator family and qualifier."""
    text = json.dumps([c["policy"] for c in cases(12_000, 30)])
    for needle in (
        '"NotPrincipal"', '"NotAction"', '"NotResource"', '"Deny"', '"Service"', '"CanonicalUser"', "CloudFront Origin",
        '"StringEquals"', '"StringNotEquals"', '"StringEqualsIgnoreCase"', '"StringNotEqualsIgnoreCase"',
        '"StringLike"', '"StringNotLike"', '"ArnLike"', '"ArnEquals"', '"ArnNotLike"', '"ArnNotEquals"',
        '"NumericLessThan"', '"NumericGreaterThanEquals"', '"NumericEquals"', '"NumericNotEquals"',
        '"DateGreaterThan"', '"DateLessThan"', '"DateEquals"', '"DateNotEquals"', '"DateLessThanEquals"',
        '"Bool"', '"BinaryEquals"', '"IpAddress"', '"NotIpAddress"', '"Null"', 'IfExists"',
        '"ForAllValues:', '"ForAnyValue:', "${aws:username}", "${aws:SourceAccount}", "${*}", "s3:?etObject",
    ):  # fmt: skip
        assert needle in text, needle
