"""Whether a resource policy allows one request, as IAM decides it, and which statement decided.

`evaluate(policy, Request(principal, action, resource, context))` answers for a bucket, queue, topic, key, function,
repository, secret, bus, log or API policy: an explicit Deny wins, else an Allow is needed, else the request is
implicitly denied. Every statement element counts: Principal/NotPrincipal (accounts, ARNs, `*`, service principals
such as `events.amazonaws.com`, CloudFront origin access identities, canonical users), Action/NotAction,
Resource/NotResource with `*`/`?` wildcards and policy variables (`${aws:username}`, `${*}`), and Condition with every
operator (String, Arn, Numeric, Date, Bool, Binary, IpAddress, Null; `...IfExists`; `ForAllValues:`/`ForAnyValue:`
on multi-valued keys). Condition keys match in any case, values as the operator says.

The request context holds what the caller knows (e.g. `aws:SourceArn`, `aws:SourceAccount`, `aws:SecureTransport`,
`aws:PrincipalOrgID`, `aws:SourceIp`, `aws:CurrentTime`); a key that is absent is absent, as in a real request.
This decides the resource policy alone: an identity's own policies are `harness.kit.identity`'s.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, Literal

from harness.kit import globs
from harness.kit.statements import Policy, PolicyError, Statement, parse_policy

Context = Mapping[str, str | bool | int | float | Sequence[str]]
Values = str | tuple[str, ...]
"""A key's value in a request: one string, or a tuple of them for a multi-valued key (such as `aws:TagKeys`)."""
Outcome = Literal["allowed", "denied", "not allowed"]
"""`denied`: an explicit Deny applies; `not allowed`: no Allow applies (IAM's implicit deny)."""

ANONYMOUS = "*"
"""The principal of an unsigned request (anyone): only a statement for everyone (`*`) names it."""


@dataclass(frozen=True)
class Request:
    """One request: who (`principal`), what (`action`, e.g. `s3:GetObject`), on what (`resource`, an ARN), and
    the request context (condition keys and their values; a list for a multi-valued key).

    `principal` is an account id, an IAM ARN (a user, role, assumed-role session, or
    `arn:aws:iam::cloudfront:user/CloudFront Origin Access Identity E2X`), a service principal
    (`cloudfront.amazonaws.com`), a canonical user id, or `*` (anonymous)."""

    principal: str
    action: str
    resource: str | None
    """The ARN asked about; None asks about the policy's other elements only (any Resource matches)."""
    context: Context = field(default_factory=dict)


@dataclass(frozen=True)
class Why:
    """How one statement met a request: which elements matched, and the first condition that did not (as
    `Operator key` words, e.g. `ArnLike aws:SourceArn`), if any."""

    principal: bool
    action: bool
    resource: bool
    condition: bool
    failed: str | None = None

    @property
    def applies(self) -> bool:
        return self.principal and self.action and self.resource and self.condition


@dataclass(frozen=True)
class Decision:
    """The decision on one request: the outcome, the decisive statement (the Deny that applied, else the Allow
    that did; for `not allowed`, the Allow that came closest, if any) with its position, and a sentence why."""

    outcome: Outcome
    statement: Statement | None
    index: int | None
    reason: str

    @property
    def allowed(self) -> bool:
        return self.outcome == "allowed"

    @property
    def label(self) -> str:
        """The decisive statement named for a learner: `statement "Sid"` or `statement 2` (1-based)."""
        return label(self.statement, self.index)


def label(statement: Statement | None, index: int | None) -> str:
    """A statement as a learner finds it in the document: by its Sid, else by its position (1-based)."""
    if statement is None or index is None:
        return "no statement"
    return f'statement "{statement.sid}"' if statement.sid else f"statement {index + 1}"


def as_policy(document: Policy | str | Mapping[str, Any]) -> Policy:
    """A parsed resource policy, from JSON text, a decoded object or a `Policy`; PolicyError if AWS would refuse it
    (a malformed element, an unknown condition operator, a condition value that is not a string, number, boolean
    or list of them)."""
    policy = (
        document
        if isinstance(document, Policy)
        else parse_policy(dict(document) if isinstance(document, Mapping) else document)
    )
    for number, statement in enumerate(policy.statements, 1):
        _check_condition(statement.condition, f"statement {number}")
    return policy


def _check_condition(condition: Mapping[str, Any], where: str) -> None:
    for operator, tests in condition.items():
        qualifier, _, name = operator.rpartition(":")
        base = name.removesuffix("IfExists") if name != "IfExists" else name
        if qualifier not in ("", "ForAllValues", "ForAnyValue") or (base not in _OPERATORS and base != "Null"):
            raise PolicyError(f"{where}: unknown condition operator {operator!r}")
        if not isinstance(tests, Mapping):
            raise PolicyError(f'{where}: "{operator}" must map condition keys to values')
        for key, values in tests.items():
            listed = values if isinstance(values, list) else [values]
            if not all(isinstance(v, str | bool | int | float) for v in listed):
                raise PolicyError(f"{where}: the values of {operator} {key} must be strings, numbers or booleans")


def evaluate(document: Policy | str | Mapping[str, Any], request: Request) -> Decision:
    """Whether the resource policy `document` allows `request`, and which statement decided (see the module)."""
    policy = as_policy(document)
    variables = policy.version == "2012-10-17"
    whys = [explain(s, request, variables=variables) for s in policy.statements]
    for index, (statement, why) in enumerate(zip(policy.statements, whys, strict=True)):
        if statement.effect == "Deny" and why.applies:
            return Decision("denied", statement, index, f"{label(statement, index)} denies {_ask(request)}")
    for index, (statement, why) in enumerate(zip(policy.statements, whys, strict=True)):
        if statement.effect == "Allow" and why.applies:
            return Decision("allowed", statement, index, f"{label(statement, index)} allows {_ask(request)}")
    return _closest_allow(policy, whys, request)


def explain(statement: Statement, request: Request, *, variables: bool = True) -> Why:
    """How `statement` meets `request` (`variables`: substitute policy variables, as Version 2012-10-17 does)."""
    context = _keys(request.context)
    principal = _principal_matches(statement, request.principal)
    action = statement.covers_action(request.action)
    resource = request.resource is None or _resource_element(statement, request.resource, context, variables)
    failed = _first_failed_condition(statement.condition, context, variables)
    return Why(principal, action, resource, failed is None, failed)


def _ask(request: Request) -> str:
    who = "everyone" if request.principal == ANONYMOUS else request.principal
    return f"{request.action} to {who}"


def _closest_allow(policy: Policy, whys: Sequence[Why], request: Request) -> Decision:
    """Implicitly denied: name the Allow that met most of the request, and what it lacked; of two that met as much,
    the one written for a principal of the asked kind (a statement naming a service, for a service) over a grant to
    `*` kept within a condition (SNS's default statement, for its account's owner): the learner's attempt."""
    scored = [
        (
            sum((why.action, why.resource, why.principal, why.condition)),
            why.action,
            _aimed(statement, request),
            -index,
            index,
        )
        for index, (statement, why) in enumerate(zip(policy.statements, whys, strict=True))
        if statement.effect == "Allow" and (why.action or why.principal)
    ]
    if not scored:
        return Decision("not allowed", None, None, f"no statement allows {_ask(request)}")
    *_, index = max(scored)
    statement, why = policy.statements[index], whys[index]
    if not why.action:
        lacks = f"does not cover {request.action}"
    elif not why.principal:
        lacks = f"is not for {'everyone' if request.principal == ANONYMOUS else request.principal}"
    elif not why.resource:
        lacks = f"does not cover {request.resource or 'the resource'}"
    else:
        lacks = f"has a Condition ({why.failed}) the request does not meet"
    allows = request.action if why.action else _actions(statement)
    return Decision("not allowed", statement, index, f"{label(statement, index)} allows {allows} but {lacks}")


def _aimed(statement: Statement, request: Request) -> bool:
    """Whether the statement names principals of the request's kind by name (a service for a service, an account
    or IAM ARN for one), rather than `*`."""
    kind = "Service" if request.principal.endswith((".amazonaws.com", ".amazonaws.com.cn")) else "AWS"
    return not statement.not_principal and any(k == kind and v != "*" for k, v in statement.principals)


def _actions(statement: Statement) -> str:
    listed = ", ".join(statement.actions)
    return f"every action but {listed}" if statement.not_action else listed


# --- principals -----------------------------------------------------------------------------------------------------

_ACCOUNT = re.compile(r"\d{12}")
_ROOT = re.compile(r"arn:[\w-]+:iam::(\d{12}):root")
_SESSION = re.compile(r"arn:([\w-]+):sts::(\d{12}):assumed-role/([^/]+)/.+")


def account_of(principal: str) -> str | None:
    """The account an IAM principal belongs to (an account id, a root, user, role or session ARN), else None."""
    if _ACCOUNT.fullmatch(principal):
        return principal
    parts = principal.split(":", 5)
    if len(parts) == 6 and parts[0] == "arn" and parts[2] in ("iam", "sts") and _ACCOUNT.fullmatch(parts[4]):
        return parts[4]
    return None


def _principal_matches(statement: Statement, principal: str) -> bool:
    named = any(_names(kind, value, principal) for kind, value in statement.principals)
    return named != statement.not_principal


def _names(kind: str, value: str, principal: str) -> bool:
    """Whether a policy's principal `kind: value` names the request principal `principal`."""
    if kind == "AWS" and value == "*":
        return True
    if principal == ANONYMOUS:
        return False
    if kind in ("Service", "CanonicalUser", "Federated"):
        return value == principal
    if kind != "AWS":
        return False
    if _ACCOUNT.fullmatch(value) or _ROOT.fullmatch(value):
        whose = value if _ACCOUNT.fullmatch(value) else _ROOT.fullmatch(value).group(1)  # type: ignore[union-attr]
        return account_of(principal) == whose
    if value == principal:
        return True
    session = _SESSION.fullmatch(principal)
    return session is not None and value == f"arn:{session[1]}:iam::{session[2]}:role/{session[3]}"


# --- resources and policy variables ---------------------------------------------------------------------------------

_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_SPECIAL = {"*": "*", "?": "?", "$": "$"}


class _Unset(Exception):
    """A policy variable names a key the request does not carry (and gives no default): the element cannot match."""


def _substitute(text: str, context: Mapping[str, Values], literal: Callable[[str], str]) -> str:
    """`text` with each `${...}` replaced: `${*}`/`${?}`/`${$}` by the character, a key by its value (wrapped by
    `literal`, so a value's own `*` is no wildcard), or its default (`${aws:username, 'none'}`)."""

    def one(match: re.Match[str]) -> str:
        inner = match.group(1)
        if inner in _SPECIAL:
            return literal(_SPECIAL[inner])
        key, _, default = inner.partition(",")
        value = context.get(key.strip().lower())
        if isinstance(value, str):
            return literal(value)
        default = default.strip()
        if value is None and len(default) >= 2 and default[0] == default[-1] == "'":
            return literal(default[1:-1])
        raise _Unset(key)

    return _VARIABLE.sub(one, text)


_LITERAL = "\x00"
"""Marks a character substituted from a variable's value, so the glob reads it literally."""


def _glob(pattern: str, context: Mapping[str, Values], variables: bool) -> globs.Glob:
    if not variables or "${" not in pattern:
        return globs.iam_glob(pattern)
    return _marked_glob(_substitute(pattern, context, lambda value: "".join(_LITERAL + c for c in value)))


def _resource_element(statement: Statement, resource: str, context: Mapping[str, Values], variables: bool) -> bool:
    """Whether the Resource (or NotResource) element covers `resource`. A pattern naming a variable the request
    lacks matches nothing; in a NotResource, one for the same partition, service, region and account makes the
    element fail outright, as a negated condition on a missing variable does."""
    matched = []
    for pattern in statement.resources:
        try:
            matched.append(globs.matches(_glob(pattern, context, variables), resource))
        except _Unset:
            if statement.not_resource and _same_place(_VARIABLE.sub("*", pattern), resource):
                return False
            matched.append(False)
    return any(matched) != statement.not_resource


def _same_place(pattern: str, resource: str) -> bool:
    """Whether an ARN pattern's first five fields (arn, partition, service, region, account) match the resource's."""
    want, have = pattern.split(":", 5), resource.split(":", 5)
    if len(want) < 6 or len(have) < 6:
        return False
    return all(globs.matches(globs.iam_glob(w), h) for w, h in zip(want[:5], have[:5], strict=True))


def _resource_matches(pattern: str, resource: str, context: Mapping[str, Values], variables: bool) -> bool:
    try:
        return globs.matches(_glob(pattern, context, variables), resource)
    except _Unset:
        return False


# --- conditions -----------------------------------------------------------------------------------------------------


def _keys(context: Context) -> dict[str, Values]:
    """The request context by lower-case key (keys match in any case): a single value as a string, a multi-valued
    key's values as a tuple of strings."""
    return {
        key.lower(): tuple(_text(v) for v in value) if isinstance(value, list | tuple) else _text(value)
        for key, value in context.items()
    }


def _text(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _first_failed_condition(condition: Mapping[str, Any], context: Mapping[str, Values], variables: bool) -> str | None:
    """The first `Operator key` of a Condition the request does not meet, or None when it meets them all."""
    for operator, tests in condition.items():
        for key, wanted in tests.items():
            wanted_values = [_text(v) for v in (wanted if isinstance(wanted, list) else [wanted])]
            if not condition_holds(operator, context.get(key.lower()), wanted_values, context, variables=variables):
                return f"{operator} {key}"
    return None


def condition_holds(
    operator: str,
    actual: Values | None,
    wanted: Sequence[str],
    context: Mapping[str, Values] | None = None,
    *,
    variables: bool = True,
) -> bool:
    """Whether one condition test holds: `operator` (e.g. `ForAnyValue:StringLikeIfExists`) on the request's value
    of the key (`actual`: a string, a tuple for a multi-valued key, None when the request lacks the key) against the
    policy's values `wanted`.

    As IAM: a missing key fails a test unless it is negated (`StringNotEquals`), `...IfExists` or `ForAllValues`
    (`ForAnyValue` fails it, `IfExists` or not); a multi-valued key needs a set operator (without one the test
    fails); `ForAllValues` holds when every value passes (vacuously for none), `ForAnyValue` when one does."""
    qualifier, _, name = operator.rpartition(":")
    if_exists = name.endswith("IfExists") and name != "IfExists"
    base = name.removesuffix("IfExists") if if_exists else name
    if base == "Null":
        return _null(actual, wanted)
    test = _OPERATORS.get(base)
    if test is None or qualifier not in ("", "ForAllValues", "ForAnyValue"):
        raise PolicyError(f"unknown condition operator {operator!r}")
    negated = base in _NEGATED
    if base in _SUBSTITUTING and variables:
        wanted = _resolved(wanted, context or {})
    if qualifier == "ForAllValues":
        return actual is None or all(_one(test, negated, v, wanted) for v in _many(actual))
    if qualifier == "ForAnyValue":
        return actual is not None and any(_one(test, negated, v, wanted) for v in _many(actual))
    if actual is None:
        return if_exists or negated
    return isinstance(actual, str) and _one(test, negated, actual, wanted)


def _many(actual: Values) -> tuple[str, ...]:
    return (actual,) if isinstance(actual, str) else actual


def _one(test: Callable[[str, str], bool], negated: bool, value: str, wanted: Sequence[str]) -> bool:
    """One request value against the policy's values: a match with any (a negated operator: with none). A value
    naming a variable the request lacks (None here) matches nothing, and fails a negated test outright."""
    if negated:
        return all(w is not None and not test(value, w) for w in wanted)
    return any(w is not None and test(value, w) for w in wanted)


def _resolved(wanted: Sequence[str], context: Mapping[str, Values]) -> list[str]:
    """The policy's values with their variables substituted (a value naming an absent key matches nothing)."""
    out = []
    for w in wanted:
        try:
            out.append(_substitute(w, context, _escape) if "${" in w else w)
        except _Unset:
            out.append(None)  # type: ignore[arg-type]
    return out


def _escape(value: str) -> str:
    return value.replace("*", _LITERAL + "*").replace("?", _LITERAL + "?")


def _null(actual: Values | None, wanted: Sequence[str]) -> bool:
    absent = actual is None
    return any((w.lower() == "true") == absent for w in wanted if w.lower() in ("true", "false"))


def _like(value: str, pattern: str) -> bool:
    return globs.matches(_marked_glob(pattern), value)


@lru_cache(maxsize=4096)
def _marked_glob(pattern: str) -> globs.Glob:
    """The glob of a pattern whose literal characters each follow `_LITERAL` (a substituted variable's value): `*`
    and `?` are wildcards only where they are not so marked."""
    tokens: list[globs.Token] = []
    chars = iter(pattern)
    for char in chars:
        if char == _LITERAL:
            tokens.append(next(chars))
        else:
            tokens.append(globs.ANY_RUN if char == "*" else globs.ANY_ONE if char == "?" else char)
    return tuple(tokens)


def _unmarked(text: str) -> str:
    return text.replace(_LITERAL, "")


def _arn_like(value: str, pattern: str) -> bool:
    """ARN matching: the six fields compared one by one (a wildcard never spans a field's `:`), each as a glob."""
    have, want = value.split(":", 5), pattern.split(":", 5)
    if len(have) != 6 or len(want) != 6:
        return False
    return all(_like(h, w) for h, w in zip(have, want, strict=True))


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _numeric(compare: Callable[[float, float], bool]) -> Callable[[str, str], bool]:
    def test(value: str, wanted: str) -> bool:
        a, b = _number(value), _number(_unmarked(wanted))
        return a is not None and b is not None and compare(a, b)

    return test


def _date_of(text: str) -> datetime | None:
    text = text.strip()
    try:
        if re.fullmatch(r"-?\d+(\.\d+)?", text):
            return datetime.fromtimestamp(float(text), tz=UTC)
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _date(compare: Callable[[datetime, datetime], bool]) -> Callable[[str, str], bool]:
    def test(value: str, wanted: str) -> bool:
        a, b = _date_of(value), _date_of(_unmarked(wanted))
        return a is not None and b is not None and compare(a, b)

    return test


def _ip(value: str, wanted: str) -> bool:
    try:
        address = ipaddress.ip_address(value.strip())
        network = ipaddress.ip_network(_unmarked(wanted).strip(), strict=False)
    except ValueError:
        return False
    return address.version == network.version and address in network


def _binary(value: str, wanted: str) -> bool:
    try:
        return base64.b64decode(value, validate=True) == base64.b64decode(_unmarked(wanted), validate=True)
    except (binascii.Error, ValueError):
        return False


def _bool(value: str, wanted: str) -> bool:
    return value.lower() in ("true", "false") and value.lower() == _unmarked(wanted).lower()


_OPERATORS: dict[str, Callable[[str, str], bool]] = {
    "StringEquals": lambda v, w: v == _unmarked(w),
    "StringNotEquals": lambda v, w: v == _unmarked(w),
    "StringEqualsIgnoreCase": lambda v, w: v.lower() == _unmarked(w).lower(),
    "StringNotEqualsIgnoreCase": lambda v, w: v.lower() == _unmarked(w).lower(),
    "StringLike": _like,
    "StringNotLike": _like,
    "ArnEquals": _arn_like,
    "ArnLike": _arn_like,
    "ArnNotEquals": _arn_like,
    "ArnNotLike": _arn_like,
    "NumericEquals": _numeric(lambda a, b: a == b),
    "NumericNotEquals": _numeric(lambda a, b: a == b),
    "NumericLessThan": _numeric(lambda a, b: a < b),
    "NumericLessThanEquals": _numeric(lambda a, b: a <= b),
    "NumericGreaterThan": _numeric(lambda a, b: a > b),
    "NumericGreaterThanEquals": _numeric(lambda a, b: a >= b),
    "DateEquals": _date(lambda a, b: a == b),
    "DateNotEquals": _date(lambda a, b: a == b),
    "DateLessThan": _date(lambda a, b: a < b),
    "DateLessThanEquals": _date(lambda a, b: a <= b),
    "DateGreaterThan": _date(lambda a, b: a > b),
    "DateGreaterThanEquals": _date(lambda a, b: a >= b),
    "Bool": _bool,
    "BinaryEquals": _binary,
    "IpAddress": _ip,
    "NotIpAddress": _ip,
}
_NEGATED = frozenset(
    {
        "StringNotEquals",
        "StringNotEqualsIgnoreCase",
        "StringNotLike",
        "ArnNotEquals",
        "ArnNotLike",
        "NumericNotEquals",
        "DateNotEquals",
        "NotIpAddress",
    }
)
_SUBSTITUTING = frozenset(name for name in _OPERATORS if name.startswith(("String", "Arn")))
"""Operators whose values may hold policy variables."""
