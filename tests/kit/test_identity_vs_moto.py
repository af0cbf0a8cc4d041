"""`identity.decide` against an evaluator no one here wrote: moto's IAM access control (`moto.iam.access_control`,
the code moto runs on every request when INITIAL_NO_AUTH_ACTION_COUNT is set), on generated policies.

Both are asked the same question the way moto asks it for a signed request (every policy the caller holds, one
action, one resource; a DENIED anywhere refuses, else a PERMITTED anywhere allows). On policies without the
features moto simplifies, the answers agree exactly; on any policy, every disagreement is one of moto's known
simplifications (docs/decisions/0021-identity-policies-vs-moto.md lists them), and each has a test of its own
below. This relies on moto internals (`IAMPolicy`, `PermissionResult`): pyproject pins moto's range, and
tests/_compat/test_moto.py fails when they move.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from moto.iam.access_control import IAMPolicy, PermissionResult

from harness.kit.identity import decide, extra_permissions, reaches, sources

pytestmark = pytest.mark.moto  # moto's IAM evaluator, on hundreds of generated policies

ACCOUNT = "123456789012"
TABLE = f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/orders"
TABLES = f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/*"
OBJECT = "arn:aws:s3:::site/index.html"
REQUEST_ACTIONS = ["dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:Query", "s3:GetObject", "s3:PutObject"]
REQUEST_RESOURCES = [TABLE, f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/users", OBJECT, "arn:aws:s3:::site2/a"]

# Patterns IAM and moto read the same way: `*` only, the actions' own case, no regex metacharacters but `*`.
PLAIN_ACTIONS = ["dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:*", "dynamodb:Put*", "*", "s3:Get*", "s3:*", "sqs:*"]
PLAIN_RESOURCES = [TABLE, TABLES, "*", "arn:aws:s3:::site/*", "arn:aws:s3:::site*", f"arn:aws:dynamodb:*:{ACCOUNT}:*"]
# What moto simplifies: `?` (a regex quantifier to moto), another case, `.` (any character to moto).
ODD_ACTIONS = ["dynamodb:?utItem", "DynamoDB:putitem", "s3:Get.bject", "s3:GetObjec?"]
ODD_RESOURCES = ["arn:aws:s3:::sit?/*", "arn:aws:s3:::site2.a", f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/ord?rs"]
CONDITION = {"StringEquals": {"aws:RequestedRegion": "us-east-1"}}


def one_or_many(values: list[str]) -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(values), st.lists(st.sampled_from(values), min_size=1, max_size=3, unique=True))


@st.composite
def statements(draw: st.DrawFn, *, plain: bool) -> dict[str, Any]:
    actions = PLAIN_ACTIONS if plain else PLAIN_ACTIONS + ODD_ACTIONS
    resources = PLAIN_RESOURCES if plain else PLAIN_RESOURCES + ODD_RESOURCES
    statement: dict[str, Any] = {"Effect": draw(st.sampled_from(["Allow", "Deny"]))}
    statement["NotAction" if draw(st.booleans()) else "Action"] = draw(one_or_many(actions))
    not_resource = not plain and draw(st.booleans())
    statement["NotResource" if not_resource else "Resource"] = draw(one_or_many(resources))
    if not plain and draw(st.integers(0, 4)) == 0:
        statement["Condition"] = CONDITION
    return statement


def documents(*, plain: bool) -> st.SearchStrategy[list[dict[str, Any]]]:
    policy = st.lists(statements(plain=plain), min_size=1, max_size=3).map(
        lambda s: {"Version": "2012-10-17", "Statement": s}
    )
    return st.lists(policy, min_size=1, max_size=3)


def moto_allows(policies: list[dict[str, Any]], action: str, resource: str) -> bool:
    """What moto answers a signed request (IAMRequestBase.check_action_permitted, without the request)."""
    permitted = False
    for document in policies:
        result = IAMPolicy(json.dumps(document)).is_action_permitted(action, resource)
        if result == PermissionResult.DENIED:
            return False
        permitted = permitted or result == PermissionResult.PERMITTED
    return permitted


def ours(policies: list[dict[str, Any]], action: str, resource: str) -> str:
    held, invalid = sources((f"policy {i}", d) for i, d in enumerate(policies, 1))
    assert not invalid
    return decide(held, action, resource).decision


def moto_simplifications(policies: list[dict[str, Any]]) -> set[str]:
    """Which of moto's known simplifications the policies exercise (docs/decisions/0021-identity-policies-vs-moto)."""
    found = set()
    for statement in (s for d in policies for s in d["Statement"]):
        patterns = [statement.get(k) for k in ("Action", "NotAction", "Resource", "NotResource")]
        flat = [p for v in patterns if v for p in ([v] if isinstance(v, str) else v)]
        if "NotResource" in statement:
            found.add("NotResource ignored")
        if "Condition" in statement:
            found.add("a Condition without request values is met")
        if any("?" in p for p in flat):
            found.add("? is a regex quantifier")
        if any("." in p for p in flat):
            found.add(". matches any character")
        if any(p != p.lower() and p.split(":")[0] != p.split(":")[0].lower() for p in flat):
            found.add("actions match case-sensitively")
    return found


@settings(max_examples=300, deadline=None)
@given(documents(plain=True), st.sampled_from(REQUEST_ACTIONS), st.sampled_from(REQUEST_RESOURCES))
def test_agrees_with_moto_where_moto_is_exact(policies, action, resource) -> None:
    assert (ours(policies, action, resource) == "allowed") == moto_allows(policies, action, resource)


@settings(max_examples=400, deadline=None)
@given(documents(plain=False), st.sampled_from(REQUEST_ACTIONS), st.sampled_from(REQUEST_RESOURCES))
def test_every_disagreement_is_a_known_moto_simplification(policies, action, resource) -> None:
    decision = ours(policies, action, resource)
    if (decision == "allowed") != moto_allows(policies, action, resource) or decision == "undecided":
        assert moto_simplifications(policies), (decision, policies)


# --- each simplification, shown once ---------------------------------------------------------------------------


def allow(**elements: Any) -> list[dict[str, Any]]:
    return [{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", **elements}]}]


def test_moto_ignores_not_resource() -> None:
    policies = allow(Action="dynamodb:*", NotResource=TABLE)
    assert ours(policies, "dynamodb:PutItem", TABLE) == "not allowed"
    assert moto_allows(policies, "dynamodb:PutItem", TABLE)  # moto reads a statement without Resource as "any"


def test_moto_reads_question_mark_as_a_regex_quantifier() -> None:
    policies = allow(Action="dynamodb:?utItem", Resource="*")
    assert ours(policies, "dynamodb:PutItem", TABLE) == "allowed"
    assert not moto_allows(policies, "dynamodb:PutItem", TABLE)


def test_moto_reads_a_dot_as_any_character() -> None:
    policies = allow(Action="s3:GetObject", Resource="arn:aws:s3:::site2.a")
    assert ours(policies, "s3:GetObject", "arn:aws:s3:::site2/a") == "not allowed"
    assert moto_allows(policies, "s3:GetObject", "arn:aws:s3:::site2/a")


def test_moto_matches_actions_case_sensitively() -> None:
    policies = allow(Action="DynamoDB:putitem", Resource="*")
    assert ours(policies, "dynamodb:PutItem", TABLE) == "allowed"
    assert not moto_allows(policies, "dynamodb:PutItem", TABLE)


def test_moto_treats_a_condition_it_has_no_value_for_as_met() -> None:
    conditional_allow = allow(Action="dynamodb:*", Resource="*", Condition=CONDITION)
    assert ours(conditional_allow, "dynamodb:PutItem", TABLE) == "undecided"
    assert moto_allows(conditional_allow, "dynamodb:PutItem", TABLE)
    conditional_deny = allow(Action="dynamodb:*", Resource="*")
    conditional_deny[0]["Statement"].append({"Effect": "Deny", "Action": "*", "Resource": "*", "Condition": CONDITION})
    assert ours(conditional_deny, "dynamodb:PutItem", TABLE) == "undecided"
    assert not moto_allows(conditional_deny, "dynamodb:PutItem", TABLE)


ASKED_ACTIONS = ["dynamodb:PutItem"]


@pytest.mark.timeout(300)  # 200 policies through moto's evaluator: 50 s measured at load 15
@settings(max_examples=200, deadline=None)
@given(documents(plain=False), st.sampled_from(REQUEST_ACTIONS), st.sampled_from(REQUEST_RESOURCES))
def test_nothing_allowed_beyond_the_asked_goes_unreported(policies, action, resource) -> None:
    """`extra_permissions` is complete: whatever `decide` allows beyond the asked actions on the asked table is
    named, the action itself when it was not asked, else the asked action on a wider resource. Only requests IAM
    can see count: an action on a resource of one of its types (dynamodb:Query on an S3 object is no request)."""
    held, _ = sources((f"policy {i}", d) for i, d in enumerate(policies, 1))
    if not reaches(action, resource) or not decide(held, action, resource).allowed:
        return
    asked = action in ASKED_ACTIONS and resource == TABLE
    extras = extra_permissions(held, {a: [TABLE] for a in ASKED_ACTIONS})
    if not asked:
        assert any(e.action == action and (action not in ASKED_ACTIONS or e.resources) for e in extras), extras
