"""IAM policy documents parsed strictly: a resource policy, an identity policy or a trust policy, as statements.

`parse_policy(doc, kind=...)` reads the three kinds of document: a resource policy (bucket, queue, topic, key:
`Principal` required), an identity policy (inline or managed, attached to a role, user or group: no `Principal`)
and a trust policy (a role's AssumeRolePolicyDocument: `Principal` required, no `Resource`). Parsing is strict on
purpose: moto stores a policy AWS would reject, so a check that relied on moto's leniency would pass a learner whose
policy could never have been applied for real. What a policy allows is decided in `harness.kit.access` (resource
policies) and `harness.kit.identity` (an identity's policies); `harness.kit.policy` keeps these names too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, get_args

from harness.kit import globs

_TOP_LEVEL = frozenset({"Version", "Id", "Statement"})
_STATEMENT_KEYS = frozenset(
    {"Sid", "Effect", "Principal", "NotPrincipal", "Action", "NotAction", "Resource", "NotResource", "Condition"}
)
_EVERYONE = ("AWS", "*")

_T = TypeVar("_T")

PolicyKind = Literal["resource", "identity", "trust"]


class PolicyError(ValueError):
    """The document is not a policy AWS would accept, so nothing can be concluded from it."""


@dataclass(frozen=True)
class Statement:
    """One normalized statement; a `not_*` flag means the element was written as NotAction/NotResource/NotPrincipal.

    `principals` holds (type, value) pairs; `"Principal": "*"` is stored as `("AWS", "*")`, which AWS treats
    the same way.
    """

    effect: Literal["Allow", "Deny"]
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    principals: tuple[tuple[str, str], ...]
    not_action: bool = False
    not_resource: bool = False
    not_principal: bool = False
    conditional: bool = False
    insecure_transport_only: bool = False
    sid: str | None = None
    condition_json: str = "{}"

    @property
    def condition(self) -> dict[str, Any]:
        """The Condition element as written (`{}` when there is none)."""
        return json.loads(self.condition_json)

    def covers_action(self, action: str) -> bool:
        """Whether this statement is about `action` (a concrete action such as `s3:GetObject`)."""
        return any(action_matches(p, action) for p in self.actions) != self.not_action

    def covers_resource(self, resource: str) -> bool:
        """Whether this statement is about `resource` (a concrete ARN)."""
        return any(resource_matches(p, resource) for p in self.resources) != self.not_resource

    @property
    def grants_everyone(self) -> bool:
        """An Allow to everyone (`*`, `{"AWS": "*"}` or a list holding `"*"`) with no Condition."""
        return (
            self.effect == "Allow" and not self.not_principal and not self.conditional and _EVERYONE in self.principals
        )


@dataclass(frozen=True)
class Policy:
    """A parsed policy document: its statements in document order."""

    statements: tuple[Statement, ...]
    version: str | None = None


def parse_policy(document: str | dict[str, Any], *, kind: PolicyKind = "resource") -> Policy:
    """Parse a policy given as JSON text or an already-decoded object; raise PolicyError if AWS would reject it.

    `kind` says which elements AWS requires and refuses: see the module's docstring.
    """
    if kind not in get_args(PolicyKind):
        raise ValueError(f"kind must be one of {', '.join(get_args(PolicyKind))}, not {kind!r}")
    if isinstance(document, str):
        try:
            document = json.loads(document)
        except json.JSONDecodeError as exc:
            raise PolicyError(
                f"the policy is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
            ) from None
    if not isinstance(document, dict) or "Statement" not in document:
        raise PolicyError('the policy must be a JSON object with a "Statement"')
    _reject_unknown(document, _TOP_LEVEL, "the policy")
    version = document.get("Version")
    if version is not None and not isinstance(version, str):
        raise PolicyError('the policy\'s "Version" must be a string such as "2012-10-17"')
    raw = document["Statement"]
    raws = [raw] if isinstance(raw, dict) else raw
    if not isinstance(raws, list):
        raise PolicyError('"Statement" must be an object or a list of objects')
    return Policy(tuple(_parse_statement(r, i, kind) for i, r in enumerate(raws, 1)), version)


def action_matches(pattern: str, action: str) -> bool:
    """IAM action matching: case-insensitive, `*` matches any run of characters and `?` any one character."""
    return globs.matches(globs.iam_glob(pattern.lower()), action.lower())


def resource_matches(pattern: str, resource: str) -> bool:
    """IAM resource matching: case-sensitive, `*` matches any run of characters (including `/`), `?` one."""
    return globs.matches(globs.iam_glob(pattern), resource)


def principal_of(value: str) -> str:
    """A principal as IAM compares it: an account id is its root ARN (`123456789012` is
    `arn:aws:iam::123456789012:root`); any other principal as it is."""
    return f"arn:aws:iam::{value}:root" if re.fullmatch(r"\d{12}", value) else value


def _parse_statement(raw: object, number: int, kind: PolicyKind = "resource") -> Statement:
    where = f"statement {number}"
    if not isinstance(raw, dict):
        raise PolicyError(f"{where} must be a JSON object")
    _reject_unknown(raw, _STATEMENT_KEYS, where)
    effect = raw.get("Effect")
    if effect not in ("Allow", "Deny"):
        raise PolicyError(f'{where}: "Effect" must be "Allow" or "Deny"')
    sid = raw.get("Sid")
    if sid is not None and not isinstance(sid, str):
        raise PolicyError(f'{where}: "Sid" must be a string')
    condition = raw.get("Condition")
    if condition is not None and not isinstance(condition, dict):
        raise PolicyError(f'{where}: "Condition" must be an object')
    actions, not_action = _either(raw, "Action", where, _strings)
    resources: tuple[str, ...]
    principals: tuple[tuple[str, str], ...]
    if kind == "trust":
        _refuse(raw, ("Resource", "NotResource"), where, "a trust policy")
        resources, not_resource = ("*",), False
    else:
        resources, not_resource = _either(raw, "Resource", where, _strings)
    if kind == "identity":
        _refuse(raw, ("Principal", "NotPrincipal"), where, "an identity policy")
        principals, not_principal = (), False
    else:
        principals, not_principal = _either(raw, "Principal", where, _principals)
    return Statement(
        effect=effect,
        actions=actions,
        resources=resources,
        principals=principals,
        not_action=not_action,
        not_resource=not_resource,
        not_principal=not_principal,
        conditional=bool(condition),
        insecure_transport_only=_insecure_transport_only(condition),
        sid=sid,
        condition_json=json.dumps(condition or {}, sort_keys=True),
    )


def _insecure_transport_only(condition: dict[str, Any] | None) -> bool:
    """Whether a Condition is exactly "the request did not use TLS" (`aws:SecureTransport` is false).

    The usual "enforce HTTPS" Deny: it does not take a public grant away from requests made over HTTPS.
    """
    if not condition or len(condition) != 1:
        return False
    operator, tests = next(iter(condition.items()))
    if operator not in ("Bool", "BoolIfExists") or not isinstance(tests, dict) or len(tests) != 1:
        return False
    key, value = next(iter(tests.items()))
    values = value if isinstance(value, list) else [value]
    return key.lower() == "aws:securetransport" and [str(v).lower() for v in values] == ["false"]


def _either(
    raw: dict[str, Any], name: str, where: str, parse: Callable[[object, str], tuple[_T, ...]]
) -> tuple[tuple[_T, ...], bool]:
    """The values of `name` or `Not<name>` (exactly one must be present), and whether it was the Not form."""
    present = [key for key in (name, f"Not{name}") if key in raw]
    if len(present) != 1:
        raise PolicyError(f'{where} needs exactly one of "{name}" and "Not{name}"')
    key = present[0]
    return parse(raw[key], f'{where}: "{key}"'), key != name


def _strings(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise PolicyError(f"{where} must be a string or a list of strings")


def _principals(value: object, where: str) -> tuple[tuple[str, str], ...]:
    if value == "*":
        return (_EVERYONE,)
    if isinstance(value, dict):
        return tuple((kind, v) for kind, vs in value.items() for v in _strings(vs, f"{where} {kind}"))
    raise PolicyError(f'{where} must be "*" or an object such as {{"AWS": "arn:aws:iam::123456789012:root"}}')


def _refuse(raw: dict[str, Any], names: tuple[str, ...], where: str, what: str) -> None:
    present = [name for name in names if name in raw]
    if present:
        raise PolicyError(f'{where}: {what} has no "{present[0]}" element')


def _reject_unknown(raw: dict[str, Any], known: frozenset[str], where: str) -> None:
    unknown = sorted(set(raw) - known)
    if unknown:
        raise PolicyError(f"{where} has unknown element(s) {', '.join(map(repr, unknown))}")
