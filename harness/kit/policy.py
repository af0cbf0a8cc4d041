"""Evaluate S3 bucket policies (whether, and why not, a grant is public) and who a resource policy allows.

The documents themselves are parsed in `harness.kit.statements` (strictly: a policy AWS would reject concludes
nothing); its names are this module's too (`parse_policy`, `Policy`, `Statement`, `PolicyError`, ...), as they always
were. What any resource policy allows one request is `harness.kit.access`'s; what an identity may do,
`harness.kit.identity`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.kit import access, globs, grants
from harness.kit.statements import (
    _EVERYONE,
    Policy,
    PolicyError,
    PolicyKind,
    Statement,
    action_matches,
    parse_policy,
    principal_of,
    resource_matches,
)

__all__ = [
    "Policy",
    "PolicyError",
    "PolicyKind",
    "PolicyVerdict",
    "Statement",
    "action_matches",
    "allowed_principals",
    "grants_public",
    "grants_public_read_of_objects",
    "parse_policy",
    "principal_of",
    "resource_matches",
]


@dataclass(frozen=True)
class PolicyVerdict:
    """The verdict, with a learner-facing sentence saying why (or why not)."""

    granted: bool
    reason: str


def grants_public(policy: Policy, action: str, resource: str) -> PolicyVerdict:
    """Whether `policy` unconditionally lets everyone perform `action` on the concrete ARN `resource`.

    Conservative: it needs an Allow to everyone without a Condition, and no Deny covering the action and
    resource, whatever the Deny's principal or Condition (a Deny that might apply to someone means the
    action is not granted to everyone), except the "enforce HTTPS" Deny (`aws:SecureTransport` false), which
    leaves the grant whole for requests over TLS. `resource` is matched literally against patterns, so do not pass
    `arn:aws:s3:::b/*` to mean "every object": use `grants_public_read_of_objects` for that.
    """
    touching = [s for s in policy.statements if s.covers_action(action) and s.covers_resource(resource)]
    allows = [s for s in touching if s.effect == "Allow"]
    grants = [s for s in allows if s.grants_everyone]
    if not grants:
        return _missing_allow(allows, action, resource)
    deny = next((s for s in touching if s.effect == "Deny" and not s.insecure_transport_only), None)
    if deny is not None:
        return _denied(deny, action)
    return PolicyVerdict(True, f"{_label(grants[0])} allows {action} to everyone on {resource}")


def grants_public_read_of_objects(policy: Policy, bucket: str) -> PolicyVerdict:
    """Whether everyone may `s3:GetObject` every object of `bucket`, unconditionally.

    A statement's Resource patterns are globs, so "every object" means: for every non-empty key `k`, some
    unconditional Allow to everyone covers `arn:aws:s3:::BUCKET/k`, and no Deny covers any of them. Testing a
    few sample keys cannot decide that (`BUCKET/?*` and `BUCKET/*` both pass `BUCKET/a`), so this decides it
    exactly: the patterns are run as automata over all keys at once, on an alphabet of the patterns' literal
    characters plus one character none of them uses (which stands for every other character). Each distinct
    combination of covering statements is found with a shortest witness key, which names an object that is
    left out when coverage is partial (e.g. `BUCKET/public/*` leaves out `BUCKET/x`).
    """
    action = "s3:GetObject"
    prefix = f"arn:aws:s3:::{bucket}/"
    everything = f"{prefix}*"
    relevant = [s for s in policy.statements if s.covers_action(action)]
    verdicts = _key_verdicts(prefix, relevant)
    touching = [s for i, s in enumerate(relevant) if any(v[i] for v in verdicts)]
    grants = [i for i, s in enumerate(relevant) if s.grants_everyone and any(v[i] for v in verdicts)]
    if not grants:
        allows = [s for s in touching if s.effect == "Allow"]
        return _missing_allow(allows, action, everything)
    left_out = next((key for v, key in verdicts.items() if not any(v[i] for i in grants)), None)
    if left_out is not None:
        if len(grants) == 1:
            who = f"{_label(relevant[grants[0]])} that allows {action} to everyone covers"
        else:
            who = f"the statements that allow {action} to everyone cover"
        return PolicyVerdict(
            False, f"{who} only some objects ({prefix}{left_out} is left out); use Resource {everything}"
        )
    deny = next((s for s in touching if s.effect == "Deny" and not s.insecure_transport_only), None)
    if deny is not None:  # whoever it names: a Deny for anyone means not everyone may
        return _denied(deny, action)
    requests = [_anonymous(action, f"{prefix}{key}") for key in verdicts.values()]
    return _engine_agrees(policy, requests) or PolicyVerdict(
        True, f"everyone may {action} every object in bucket {bucket}"
    )


def _anonymous(action: str, resource: str) -> access.Request:
    """An unsigned request over HTTPS, as anyone on the internet makes one."""
    return access.Request(access.ANONYMOUS, action, resource, {"aws:SecureTransport": "true"})


def _engine_agrees(policy: Policy, requests: Iterable[access.Request]) -> PolicyVerdict | None:
    """None when the policy engine (`harness.kit.access`, IAM's semantics) allows each of `requests` (an anonymous
    request for one object of every kind the statements tell apart), else the verdict naming the statement that
    refuses one."""
    for request in requests:
        decision = access.evaluate(policy, request)
        if not decision.allowed:
            return PolicyVerdict(False, f"{decision.reason} on {request.resource}")
    return None


def allowed_principals(policy: Policy, action: str, source_arn: str | None = None) -> list[str]:
    """The principals a resource policy names in an Allow that lets them `action` (on any resource; from
    `source_arn` when given, else from any source), as IAM evaluates it (`harness.kit.access`): e.g. who may
    invoke a function or send to a queue. A statement whose other conditions a plain request does not meet (e.g.
    SNS's default `AWS:SourceOwner` without a source) grants nothing here."""
    contexts = [grants.source_context(source_arn)] if source_arn else grants.sources_of(policy)
    named = {
        value for s in policy.statements if s.effect == "Allow" and not s.not_principal for _, value in s.principals
    }
    return sorted(
        value
        for value in named
        if any(access.evaluate(policy, access.Request(value, action, None, context)).allowed for context in contexts)
    )


def _label(statement: Statement) -> str:
    return f'the statement "{statement.sid}"' if statement.sid else "the statement"


def _missing_allow(allows: Sequence[Statement], action: str, target: str) -> PolicyVerdict:
    """Explain why none of `allows` (the Allows touching `target`) is an unconditional grant to everyone."""
    for s in allows:
        if s.conditional and not s.not_principal and _EVERYONE in s.principals:
            return PolicyVerdict(
                False, f"{_label(s)} that allows {action} has a Condition, so the grant is not unconditional"
            )
    if allows:
        return PolicyVerdict(
            False,
            f'{_label(allows[0])} that allows {action} is limited to specific principals, not everyone ("*")',
        )
    return PolicyVerdict(False, f"no statement allows {action} to everyone on {target}")


def _denied(deny: Statement, action: str) -> PolicyVerdict:
    name = f' "{deny.sid}"' if deny.sid else ""
    maybe = ", since its Condition may apply" if deny.conditional else ""
    return PolicyVerdict(False, f"a Deny statement{name} for {action} cancels the grant{maybe}")


def _key_verdicts(prefix: str, statements: Sequence[Statement]) -> dict[tuple[bool, ...], str]:
    """Every distinct tuple (does statement i cover `prefix + key`?) over all non-empty keys, each with a
    shortest witness key; insertion order is shortest-witness first."""
    return globs.regions(prefix, [(tuple(map(globs.iam_glob, s.resources)), s.not_resource) for s in statements])
