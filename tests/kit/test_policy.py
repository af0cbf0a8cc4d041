"""The bucket-policy evaluator: IAM matching semantics, conservative public-grant verdicts, strict parsing."""

from __future__ import annotations

import itertools
import json
import re
from fnmatch import fnmatchcase
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.kit.policy import (
    PolicyError,
    PolicyVerdict,
    action_matches,
    grants_public,
    grants_public_read_of_objects,
    parse_policy,
    resource_matches,
)

BUCKET = "b"
OBJECTS = f"arn:aws:s3:::{BUCKET}/*"
AN_OBJECT = f"arn:aws:s3:::{BUCKET}/photos/cat.jpg"


def allow(**overrides: Any) -> dict[str, Any]:
    """A public-read statement for bucket `b`, with elements replaced (a value of None removes the element)."""
    statement = {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": OBJECTS}
    statement.update(overrides)
    return {k: v for k, v in statement.items() if v is not None}


def policy(*statements: dict[str, Any]) -> dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": list(statements)}


def read_all(*statements: dict[str, Any]) -> PolicyVerdict:
    return grants_public_read_of_objects(parse_policy(json.dumps(policy(*statements))), BUCKET)


def read_one(*statements: dict[str, Any], resource: str = AN_OBJECT) -> PolicyVerdict:
    return grants_public(parse_policy(policy(*statements)), "s3:GetObject", resource)


def test_plain_public_read_is_granted() -> None:
    verdict = read_all(allow())
    assert verdict == PolicyVerdict(True, "everyone may s3:GetObject every object in bucket b")
    assert read_one(allow()).granted


@pytest.mark.parametrize(
    "action", ["s3:GetObject", "s3:*", "s3:Get*", "*", ["s3:getobject"], "S3:GETOBJECT", "s3:GetObj?ct"]
)
def test_actions_that_cover_get_object(action: str | list[str]) -> None:
    assert read_all(allow(Action=action)).granted
    assert read_one(allow(Action=action)).granted


@pytest.mark.parametrize("action", ["s3:PutObject", "s3:GetObjectAcl", "s3:List*", ["ec2:*", "s3:Put*"]])
def test_actions_that_do_not_cover_get_object(action: str | list[str]) -> None:
    verdict = read_all(allow(Action=action))
    assert verdict == PolicyVerdict(False, f"no statement allows s3:GetObject to everyone on {OBJECTS}")


@pytest.mark.parametrize(
    "principal", ["*", {"AWS": "*"}, {"AWS": ["*"]}, {"AWS": ["arn:aws:iam::111122223333:root", "*"]}]
)
def test_principals_meaning_everyone(principal: object) -> None:
    assert read_all(allow(Principal=principal)).granted


@pytest.mark.parametrize(
    "principal",
    [
        {"AWS": "arn:aws:iam::111122223333:root"},
        {"AWS": ["arn:aws:iam::111122223333:root"]},
        {"Service": "cloudfront.amazonaws.com"},
        {"CanonicalUser": "79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be"},
    ],
)
def test_specific_principals_are_not_everyone(principal: object) -> None:
    verdict = read_all(allow(Principal=principal))
    assert not verdict.granted
    assert "limited to specific principals" in verdict.reason


def test_allow_with_not_principal_is_not_everyone() -> None:
    assert not read_all(allow(Principal=None, NotPrincipal={"AWS": "arn:aws:iam::111122223333:root"})).granted


@pytest.mark.parametrize(
    "resource",
    [
        OBJECTS,
        "*",
        "arn:aws:s3:::*",
        "arn:aws:s3:::b*",
        "arn:aws:s3:::b/?*",
        "arn:aws:s3:::?/*",
        ["arn:aws:s3:::b", "arn:aws:s3:::b/*"],
    ],
)
def test_resources_covering_every_object(resource: str | list[str]) -> None:
    assert read_all(allow(Resource=resource)).granted


def test_bucket_arn_alone_does_not_cover_objects() -> None:
    verdict = read_all(allow(Resource="arn:aws:s3:::b"))
    assert verdict == PolicyVerdict(False, f"no statement allows s3:GetObject to everyone on {OBJECTS}")
    assert not read_one(allow(Resource="arn:aws:s3:::b")).granted


def test_a_prefix_is_not_every_object() -> None:
    statement = allow(Resource="arn:aws:s3:::b/public/*")
    verdict = read_all(statement)
    assert not verdict.granted
    assert "only some objects (arn:aws:s3:::b/x is left out)" in verdict.reason
    assert f"use Resource {OBJECTS}" in verdict.reason
    assert read_one(statement, resource="arn:aws:s3:::b/public/a.txt").granted


@pytest.mark.parametrize(
    ("resource", "left_out"),
    [
        ("arn:aws:s3:::b/?", "arn:aws:s3:::b/xx"),
        ("arn:aws:s3:::b/*.html", "arn:aws:s3:::b/x"),
        ("arn:aws:s3:::other/*", None),
        ("arn:aws:s3:::B/*", None),
    ],
)
def test_patterns_that_only_look_like_every_object(resource: str, left_out: str | None) -> None:
    verdict = read_all(allow(Resource=resource))
    assert not verdict.granted
    if left_out is not None:
        assert f"({left_out} is left out)" in verdict.reason


def test_coverage_can_come_from_several_statements() -> None:
    private = "arn:aws:s3:::b/private/*"
    assert not read_all(allow(Resource=None, NotResource=private)).granted
    assert read_all(allow(Resource=None, NotResource=private), allow(Resource=private)).granted
    two = read_all(allow(Resource="arn:aws:s3:::b/a*"), allow(Resource="arn:aws:s3:::b/b*"))
    assert two.reason.startswith("the statements that allow s3:GetObject to everyone cover only some objects")


def test_allow_with_condition_is_not_unconditional() -> None:
    condition = {"Bool": {"aws:SecureTransport": "true"}}
    verdict = read_all(allow(Condition=condition))
    assert verdict == PolicyVerdict(
        False, "the statement that allows s3:GetObject has a Condition, so the grant is not unconditional"
    )
    assert read_one(allow(Condition=condition)) == verdict
    assert read_all(allow(Condition={})).granted


def test_unconditional_deny_cancels() -> None:
    deny = {"Effect": "Deny", "Principal": "*", "Action": "s3:*", "Resource": "*"}
    expected = PolicyVerdict(False, "a Deny statement for s3:GetObject cancels the grant")
    assert read_all(allow(), deny) == expected
    assert read_one(deny, allow()) == expected


def test_conditional_deny_is_assumed_to_apply() -> None:
    deny = {
        "Sid": "OfficeOnly",
        "Effect": "Deny",
        "Principal": "*",
        "Action": "s3:*",
        "Resource": OBJECTS,
        "Condition": {"NotIpAddress": {"aws:SourceIp": "203.0.113.0/24"}},
    }
    verdict = read_all(allow(), deny)
    assert verdict == PolicyVerdict(
        False, 'a Deny statement "OfficeOnly" for s3:GetObject cancels the grant, since its Condition may apply'
    )


def test_deny_on_some_objects_cancels_every_object_but_not_others() -> None:
    deny = {"Effect": "Deny", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/private/*"}
    assert not read_all(allow(), deny).granted
    assert read_one(allow(), deny, resource="arn:aws:s3:::b/public/a").granted
    assert not read_one(allow(), deny, resource="arn:aws:s3:::b/private/a").granted


def test_deny_of_another_action_does_not_cancel() -> None:
    deny = {"Effect": "Deny", "Principal": "*", "Action": "s3:DeleteObject", "Resource": "*"}
    assert read_all(allow(), deny).granted


def test_not_action_allow_grants_what_it_does_not_exclude() -> None:
    assert read_all(allow(Action=None, NotAction="s3:Delete*")).granted
    assert not read_all(allow(Action=None, NotAction="s3:Get*")).granted


def test_single_statement_object_and_sid_in_reason() -> None:
    document = {"Statement": allow(Sid="PublicRead", Resource="arn:aws:s3:::b/public/*")}
    parsed = parse_policy(document)
    assert len(parsed.statements) == 1
    verdict = grants_public_read_of_objects(parsed, BUCKET)
    assert verdict.reason.startswith('the statement "PublicRead" that allows s3:GetObject to everyone covers')


def test_grant_reason_names_the_statement() -> None:
    verdict = read_one(allow(Sid="PublicRead"))
    assert verdict == PolicyVerdict(True, f'the statement "PublicRead" allows s3:GetObject to everyone on {AN_OBJECT}')


def test_parse_normalizes_elements() -> None:
    (statement,) = parse_policy(policy(allow(Action=["s3:GetObject", "s3:GetObjectVersion"]))).statements
    assert statement.actions == ("s3:GetObject", "s3:GetObjectVersion")
    assert statement.resources == (OBJECTS,)
    assert statement.principals == (("AWS", "*"),)
    assert not statement.conditional
    assert statement.grants_everyone


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("this is not json", "not valid JSON"),
        ('{"Statement": [', "not valid JSON"),
        ("[]", 'JSON object with a "Statement"'),
        ('{"Version": "2012-10-17"}', 'JSON object with a "Statement"'),
        ('{"Statement": "Allow"}', '"Statement" must be an object or a list'),
        ('{"Statement": [], "Statements": []}', "unknown element(s) 'Statements'"),
        ('{"Statement": [], "Version": 2012}', '"Version" must be a string'),
        (policy(7), "statement 1 must be a JSON object"),
        (policy(allow(Effect=None)), '"Effect" must be "Allow" or "Deny"'),
        (policy(allow(Effect="allow")), '"Effect" must be "Allow" or "Deny"'),
        (policy(allow(Principal=None)), 'exactly one of "Principal" and "NotPrincipal"'),
        (policy(allow(Action=None)), 'exactly one of "Action" and "NotAction"'),
        (policy(allow(NotAction="s3:Put*")), 'exactly one of "Action" and "NotAction"'),
        (policy(allow(Resource=None)), 'exactly one of "Resource" and "NotResource"'),
        (policy(allow(Action=3)), '"Action" must be a string or a list of strings'),
        (policy(allow(Resource=["a", None])), '"Resource" must be a string or a list of strings'),
        (policy(allow(Principal="everyone")), '"Principal" must be "*" or an object'),
        (policy(allow(Principal={"AWS": 1})), "must be a string or a list of strings"),
        (policy(allow(Condition="yes")), '"Condition" must be an object'),
        (policy(allow(Sid=1)), '"Sid" must be a string'),
        (policy(allow(Actions="s3:GetObject")), "unknown element(s) 'Actions'"),
    ],
)
def test_documents_aws_would_reject(document: str | dict[str, Any], message: str) -> None:
    with pytest.raises(PolicyError) as raised:
        parse_policy(document)
    assert message in str(raised.value)
    assert isinstance(raised.value, ValueError)


# Property tests ------------------------------------------------------------------------------------------

ACTIONS = ["s3:GetObject", "s3:Get*", "s3:*", "*", "s3:PutObject", "s3:List*", "ec2:*", "s3:getobject"]
RESOURCES = [OBJECTS, "*", "arn:aws:s3:::b", "arn:aws:s3:::b/public/*", "arn:aws:s3:::other/*", AN_OBJECT]
PRINCIPALS = ["*", {"AWS": "*"}, {"AWS": ["arn:aws:iam::111122223333:root"]}, {"Service": "s3.amazonaws.com"}]
CONDITIONS = [None, {"Bool": {"aws:SecureTransport": "true"}}]


def one_or_list(values: list[Any]) -> st.SearchStrategy[Any]:
    return st.sampled_from(values) | st.lists(st.sampled_from(values), min_size=1, max_size=3)


@st.composite
def statements(draw: st.DrawFn, actions: list[str] = ACTIONS, not_action: bool = True) -> dict[str, Any]:
    statement: dict[str, Any] = {
        "Effect": draw(st.sampled_from(["Allow", "Deny"])),
        ("NotAction" if not_action and draw(st.booleans()) else "Action"): draw(one_or_list(actions)),
        ("NotResource" if draw(st.booleans()) else "Resource"): draw(one_or_list(RESOURCES)),
        "Principal": draw(st.sampled_from(PRINCIPALS)),
    }
    condition = draw(st.sampled_from(CONDITIONS))
    if condition is not None:
        statement["Condition"] = condition
    return statement


def verdicts(document: dict[str, Any]) -> tuple[PolicyVerdict, PolicyVerdict]:
    parsed = parse_policy(document)
    return grants_public(parsed, "s3:GetObject", AN_OBJECT), grants_public_read_of_objects(parsed, BUCKET)


@given(
    st.lists(statements(), max_size=5),
    st.sampled_from(["s3:GetObject", "s3:*", "*", "S3:Get*"]),
    st.sampled_from([OBJECTS, "*", "arn:aws:s3:::b/photos/*"]),
    st.sampled_from(PRINCIPALS),
    st.sampled_from(CONDITIONS),
    st.data(),
)
def test_a_matching_deny_always_cancels(
    base: list[dict[str, Any]], action: str, resource: str, principal: Any, condition: Any, data: st.DataObject
) -> None:
    deny = {"Effect": "Deny", "Principal": principal, "Action": action, "Resource": resource}
    if condition is not None:
        deny["Condition"] = condition
    at = data.draw(st.integers(0, len(base)))
    one, every = verdicts(policy(*base[:at], deny, *base[at:]))
    assert not one.granted
    assert not every.granted


OTHER_ACTIONS = ["s3:PutObject", "s3:Delete*", "ec2:*", "s3:List*", "s3:GetObjectAcl"]


@given(
    st.lists(statements(), max_size=4),
    st.lists(statements(OTHER_ACTIONS, not_action=False), max_size=3),
    st.data(),
)
def test_statements_about_other_actions_change_nothing(
    base: list[dict[str, Any]], unrelated: list[dict[str, Any]], data: st.DataObject
) -> None:
    mixed = list(base)
    for statement in unrelated:
        mixed.insert(data.draw(st.integers(0, len(mixed))), statement)
    assert verdicts(policy(*mixed)) == verdicts(policy(*base))


ACTION_TEXT = st.text(alphabet="abAB3:", max_size=8)
GLOB = st.text(alphabet="abAB3:*?", max_size=8)


@given(GLOB, ACTION_TEXT)
def test_action_matching_ignores_case(pattern: str, action: str) -> None:
    expected = action_matches(pattern, action)
    assert action_matches(pattern.swapcase(), action) == expected
    assert action_matches(pattern, action.upper()) == expected
    assert action_matches(pattern.lower(), action.lower()) == expected


@given(st.text(alphabet="ab:/*?", max_size=8), st.text(alphabet="ab:/*", max_size=8))
def test_resource_matching_agrees_with_fnmatch(pattern: str, resource: str) -> None:
    assert resource_matches(pattern, resource) == fnmatchcase(resource, pattern)


@given(GLOB, ACTION_TEXT)
def test_action_matching_agrees_with_fnmatch(pattern: str, action: str) -> None:
    assert action_matches(pattern, action) == fnmatchcase(action.lower(), pattern.lower())


def test_resource_matching_is_case_sensitive() -> None:
    assert resource_matches("arn:aws:s3:::b/*", "arn:aws:s3:::b/Key")
    assert not resource_matches("arn:aws:s3:::B/*", "arn:aws:s3:::b/key")


SAMPLE_KEYS = ["".join(k) for n in range(1, 4) for k in itertools.product("ab/x", repeat=n)]
SAMPLE_KEYS += ["ab/ba/x", "xxxxxxxx", "a/b/a/b/a"]
PATTERN_STEM = st.sampled_from(["arn:aws:s3:::b/", "arn:aws:s3:::b", "arn:aws:s3:::", "", "arn:aws:s3:::?/"])
PATTERN = st.builds(lambda stem, tail: stem + tail, PATTERN_STEM, st.text(alphabet="ab/*?", max_size=5))


@given(
    st.lists(
        st.builds(
            lambda negate, patterns: allow(Resource=None, NotResource=patterns) if negate else allow(Resource=patterns),
            st.booleans(),
            st.lists(PATTERN, min_size=1, max_size=3),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_every_object_verdict_is_exact(grants: list[dict[str, Any]]) -> None:
    """Covered means every sample key is granted; not covered comes with a key that really is left out."""
    parsed = parse_policy(policy(*grants))
    verdict = grants_public_read_of_objects(parsed, BUCKET)
    granted = {key: grants_public(parsed, "s3:GetObject", f"arn:aws:s3:::b/{key}").granted for key in SAMPLE_KEYS}
    if verdict.granted:
        assert all(granted.values())
        return
    left_out = re.search(r"\((arn:aws:s3:::b/.+) is left out\)", verdict.reason)
    if left_out is None:
        assert verdict.reason == f"no statement allows s3:GetObject to everyone on {OBJECTS}"
        assert not any(granted.values())
    else:
        assert not grants_public(parsed, "s3:GetObject", left_out.group(1)).granted


def test_an_enforce_https_deny_leaves_the_public_grant_whole() -> None:
    from harness.kit.policy import grants_public_read_of_objects, parse_policy

    allow = {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}
    https_only = {
        "Effect": "Deny",
        "Principal": "*",
        "Action": "s3:*",
        "Resource": ["arn:aws:s3:::b", "arn:aws:s3:::b/*"],
        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }
    assert grants_public_read_of_objects(parse_policy({"Statement": [allow, https_only]}), "b").granted
    from_one_ip = {**https_only, "Condition": {"NotIpAddress": {"aws:SourceIp": "203.0.113.0/24"}}}
    verdict = grants_public_read_of_objects(parse_policy({"Statement": [allow, from_one_ip]}), "b")
    assert not verdict.granted and "Deny" in verdict.reason


def test_public_read_is_decided_by_the_policy_engine_for_each_kind_of_object(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.kit import access

    allow = {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}
    photos = {**allow, "Resource": "arn:aws:s3:::b/photos/*", "Sid": "Photos"}
    parsed = parse_policy({"Version": "2012-10-17", "Statement": [allow, photos]})
    asked: list[access.Request] = []
    evaluate = access.evaluate

    def engine(document: Any, request: access.Request) -> access.Decision:
        asked.append(request)
        return evaluate(document, request)

    monkeypatch.setattr(access, "evaluate", engine)
    assert grants_public_read_of_objects(parsed, "b").granted
    resources = {r.resource for r in asked}
    assert {r.principal for r in asked} == {access.ANONYMOUS} and len(resources) == 2  # one object of each kind
    assert any(r.startswith("arn:aws:s3:::b/photos/") for r in resources)

    def refuses(document: Any, request: access.Request) -> access.Decision:
        return access.Decision("not allowed", None, None, "no statement allows s3:GetObject to everyone")

    monkeypatch.setattr(access, "evaluate", refuses)
    verdict = grants_public_read_of_objects(parsed, "b")
    assert not verdict.granted and verdict.reason.startswith("no statement allows s3:GetObject to everyone on ")
