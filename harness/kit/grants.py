"""Requirements on any resource's policy (bucket, queue, topic, key, function, repository, secret, bus, logs, API):
"PRINCIPAL may ACTION on it (from SOURCE)", "only PRINCIPAL (from SOURCE) may", "nobody else may".

Each question is asked of `harness.kit.access` (IAM's evaluation of the policy), so a miss names the statement at
fault: the Deny that applies, the Allow that comes closest (and what it lacks), or the Allow that lets someone else
in. The resource is read as its ARN (`QueueArn`, `TopicArn`, `FunctionArn`, a bucket's `arn:aws:s3:::NAME` and,
for an object action, every object in it; `on=` names another ARN, and a trailing `*` means "every ARN under it").
A source (`source=`: an ARN, or a described resource or output) is the request's `aws:SourceArn`, and its account
the request's `aws:SourceAccount`, as a service sends them when it acts for that resource. The policy is read off
the described resource under one of `POLICY_KEYS` (`Policy`, `KeyPolicy`, `ResourcePolicy`, a REST API's `policy`);
`document=` reads it another way (a function of the described resource, e.g. a log resource policy's text).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from harness.kit import access, globs, identity
from harness.kit.access import ANONYMOUS, Decision, Request
from harness.kit.kinds import Resource
from harness.kit.later import later
from harness.kit.renamed import old_name
from harness.kit.require import Requirement, require
from harness.kit.statements import Policy, PolicyError, principal_of

Document = Callable[[Resource], str | Mapping[str, Any] | None]

POLICY_KEYS = ("Policy", "KeyPolicy", "policy", "ResourcePolicy", "policyDocument", "PolicyText")
"""Where a described resource holds its policy document, best first."""
_ARN_KEYS = ("QueueArn", "TopicArn", "FunctionArn", "KeyArn", "repositoryArn", "Arn", "ARN", "arn", "TrailARN")
_ROOT = re.compile(r"arn:[\w-]+:iam::(\d{12}):root")
_OBJECT = globs.arn_format("arn:${Partition}:s3:::${BucketName}/${ObjectName}")
STRANGER = "999999999999"
"""An account no lab uses: where the principals and sources of "somebody else" come from."""


@dataclass(frozen=True)
class PolicyFinding:
    """What a requirement found: whether it holds, and the sentence a learner reads (either way)."""

    holds: bool
    sentence: str

    def __str__(self) -> str:
        return self.sentence


def policy_document(resource: Resource) -> str | Mapping[str, Any] | None:
    """The resource's policy document as its kind describes it (under one of `POLICY_KEYS`), None if it has none."""
    return next((resource[key] for key in POLICY_KEYS if resource.get(key)), None)


def arn_of(value: Resource | str | None) -> str | None:
    """An ARN given as text, or read off a described resource (its `QueueArn`, `TopicArn`, `Arn`...; a bucket's
    name as `arn:aws:s3:::NAME`): what a source or a resource is named by in a request."""
    if value is None or isinstance(value, str):
        return value
    found = next((str(value[key]) for key in _ARN_KEYS if value.get(key)), None)
    if found is None and (value.get("Name") or value.get("Bucket")) and not value.get("QueueUrl"):
        found = f"arn:aws:s3:::{value.get('Bucket') or value.get('Name')}"
    return found


def source_context(source: str | None) -> dict[str, str]:
    """The request context of a call a service makes for `source` (an ARN): `aws:SourceArn` and, when the ARN names
    one, `aws:SourceAccount`; with `aws:SecureTransport` true and `aws:CurrentTime` now, as every such call has."""
    context = {"aws:SecureTransport": "true", "aws:CurrentTime": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    if source:
        context["aws:SourceArn"] = source
        account = _account(source)
        if account:
            context["aws:SourceAccount"] = account
    return context


def _from(source: str, target: str | None) -> dict[str, str]:
    """The context of a call from `source`; a source whose ARN names no account (an S3 bucket) is taken to be in the
    account of the resource called, as the usual "bucket notifies a queue" is, so `aws:SourceAccount` is that."""
    context = source_context(source)
    owner = _account(target or "")
    if "aws:SourceAccount" not in context and owner:
        context["aws:SourceAccount"] = owner
    return context


def _account(arn: str) -> str | None:
    parts = arn.split(":", 5)
    return parts[4] if len(parts) == 6 and parts[4].isdigit() else None


def _targets(on: str, action: str, policy: Policy) -> list[str]:
    """The ARNs to ask about: `on` itself, or for `PREFIX*` one ARN per distinct way the policy's Resource patterns
    treat what is under PREFIX (each with a shortest witness), so that "every object" is decided exactly."""
    if not on.endswith("*") or "*" in on[:-1] or "?" in on:
        return [on]
    prefix = on[:-1]
    relevant = [s for s in policy.statements if s.covers_action(action)]
    sets = [(tuple(globs.iam_glob(p) for p in s.resources), s.not_resource) for s in relevant]
    witnesses = list(globs.regions(prefix, sets).values()) if sets else ["x"]
    return [prefix + key for key in witnesses]


def _on(resource: Resource, action: str, on: str | None) -> str | None:
    if on is not None:
        return on
    arn = arn_of(resource)
    if arn and arn.startswith("arn:aws:s3:::") and "/" not in arn:
        reach = identity.reach(action)
        if reach is not None and _OBJECT in reach:
            return f"{arn}/*"
    return arn


def sources_of(policy: Policy) -> list[dict[str, str]]:
    """Request contexts for "from some source": none, and each source ARN or account the policy's conditions name
    (a pattern as the shortest text it matches), so that a grant scoped to a source counts when no source is asked
    about. `AWS:SourceOwner` is never assumed: a service acting for a resource does not send it (SNS's default topic
    policy, which tests it, lets no service publish)."""
    arns, accounts = {""}, {""}
    for statement in policy.statements:
        for tests in statement.condition.values():
            for key, values in tests.items():
                for value in values if isinstance(values, list) else [values]:
                    witness = str(value).replace("*", "").replace("?", "x")  # the shortest source it admits
                    if key.lower() == "aws:sourcearn":
                        arns.add(witness)
                    elif key.lower() == "aws:sourceaccount":
                        accounts.add(witness)
    contexts = []
    for arn in sorted(arns):
        base = source_context(arn or None)
        contexts.append(base)
        for account in sorted(accounts - {""}):
            contexts.append({**base, "aws:SourceAccount": account})
    return contexts


def _decide(policy: Policy, principal: str, action: str, targets: Sequence[str], contexts: Iterable[dict[str, str]],
            extra: Mapping[str, Any]) -> Decision:  # fmt: skip
    """The first allowing decision over `contexts` for every target (each must be allowed), else the most telling
    refusal: a Deny over an implicit one."""
    refusals = []
    for context in contexts:
        decisions = [access.evaluate(policy, Request(principal, action, t, {**context, **extra})) for t in targets]
        refused = next((d for d in decisions if not d.allowed), None)
        if refused is None:
            return decisions[0]
        refusals.append(refused)
    return next((d for d in refusals if d.outcome == "denied"), refusals[0])


def _who(principal: str) -> str:
    """A principal as a message names it: `everyone`, `account 123456789012`, or as given."""
    return "everyone" if principal == ANONYMOUS else f"account {principal}" if principal.isdigit() else principal


def _parsed(resource: Resource, document: Document) -> Policy | str:
    raw = document(resource)
    if not raw:
        return "it has no resource policy"
    if isinstance(raw, str) and raw.startswith('{\\"'):
        raw = raw.replace('\\"', '"')  # API Gateway answers a REST API's policy with its quotes escaped
    try:
        decoded = json.loads(raw) if isinstance(raw, str) else dict(raw)
        if resource.get("repositoryArn"):
            decoded = _implied_resource(decoded, str(resource["repositoryArn"]))
        return access.as_policy(decoded)
    except (PolicyError, json.JSONDecodeError) as error:
        return f"its resource policy is not valid: {error}"


def _implied_resource(document: Any, arn: str) -> Any:
    """An ECR repository policy's statements leave Resource out (it is the repository): write it in."""
    if not isinstance(document, dict) or not isinstance(document.get("Statement"), list | dict):
        return document
    raws = document["Statement"] if isinstance(document["Statement"], list) else [document["Statement"]]
    statements = [
        {**s, "Resource": arn} if isinstance(s, dict) and "Resource" not in s and "NotResource" not in s else s
        for s in raws
    ]
    return {**document, "Statement": statements}


def _may(principal: str, action: str, source: str | None, on: str | None, context: Mapping[str, Any],
         document: Document) -> Callable[[Resource], PolicyFinding]:  # fmt: skip
    asked = principal_of(principal) if principal.isdigit() else principal
    from_where = f" from {source}" if source else ""

    def finding(resource: Resource) -> PolicyFinding:
        policy = _parsed(resource, document)
        if isinstance(policy, str):
            return PolicyFinding(False, f"{policy}, so {_who(principal)} may not {action}{from_where}.")
        target = _on(resource, action, on)
        targets = _targets(target, action, policy) if target else [""]
        contexts = [_from(source, target)] if source else sources_of(policy)
        decision = _decide(policy, asked, action, targets, contexts, context)
        if decision.allowed:
            return PolicyFinding(True, f"its policy's {decision.label} lets {_who(principal)} {action}{from_where}.")
        return PolicyFinding(
            False, f"its policy does not let {_who(principal)} {action}{from_where}: {decision.reason}."
        )

    return finding


def _others(principal: str, source: str | None, owner: str | None) -> list[tuple[str, dict[str, str], str]]:
    """Who "somebody else" is, each as (principal, request context, how a message names them): anyone, a role in
    another account and in the resource's own, and for a service or identity asked from a source, the same
    principal from another source of that kind (another account's, and another in the same account)."""
    others = [
        (ANONYMOUS, source_context(None), "everyone"),
        (f"arn:aws:iam::{STRANGER}:role/somebody", source_context(None), f"a role in account {STRANGER}"),
    ]
    if owner and owner != STRANGER:
        others.append((f"arn:aws:iam::{owner}:role/somebody", source_context(None), f"a role in account {owner}"))
    if principal.endswith(".amazonaws.com") and source:
        parts = source.split(":", 5)
        if len(parts) == 6:
            foreign = ":".join([*parts[:4], STRANGER, parts[5]])
            sibling = ":".join([*parts[:5], parts[5] + "-other"])
            if parts[4]:  # a source in an account (a bucket's ARN names none: its name is global)
                others.append((principal, source_context(foreign), f"{principal} from {foreign}"))
            others.append((principal, source_context(sibling), f"{principal} from {sibling}"))
    elif principal.startswith("arn:aws:iam::cloudfront:user/"):
        other = "arn:aws:iam::cloudfront:user/CloudFront Origin Access Identity EOTHER"
        others.append((other, source_context(None), "another origin access identity"))
    return others


def _nobody_else(principals: Sequence[str], action: str, source: str | None, on: str | None,
                 context: Mapping[str, Any], document: Document) -> Callable[[Resource], PolicyFinding]:  # fmt: skip
    named = {principal_of(p) if p.isdigit() else p for p in principals}
    meant = " or ".join(_who(p) for p in principals) + (f" from {source}" if source else "")

    def finding(resource: Resource) -> PolicyFinding:
        policy = _parsed(resource, document)
        if isinstance(policy, str):
            return PolicyFinding(True, f"{policy}, so nobody may {action}.")
        target = _on(resource, action, on)
        targets = _targets(target, action, policy) if target else [""]
        owner = _account(target or "") or _account(arn_of(resource) or "")
        for principal in principals:
            for other, other_context, called in [
                *_others(principal, source, owner),
                *_named_in(policy),
                *_from_named_sources(principal, policy),
            ]:
                if _among(other, other_context, named, source):
                    continue
                for arn in targets:
                    decision = access.evaluate(policy, Request(other, action, arn, {**other_context, **context}))
                    if decision.allowed:
                        return PolicyFinding(
                            False,
                            f"its policy's {decision.label} also lets {called} {action}"
                            f"{' on ' + arn if len(targets) > 1 else ''} (only {meant} should).",
                        )
        return PolicyFinding(True, f"nobody but {meant} may {action}.")

    return finding


def _named_in(policy: Policy) -> list[tuple[str, dict[str, str], str]]:
    """Every principal the policy's Allows name (an account as a role in it), asked from no source and from each
    source the policy's conditions name: the others a policy most plausibly lets in."""
    found = []
    contexts = sources_of(policy)
    for statement in policy.statements:
        if statement.effect != "Allow" or statement.not_principal:
            continue
        for _, value in statement.principals:
            if value == "*":
                continue
            account = _ROOT.fullmatch(value) or re.fullmatch(r"(\d{12})", value)
            who = f"arn:aws:iam::{account[1]}:role/somebody" if account else value
            called = f"a role in account {account[1]}" if account else value
            for context in contexts:
                source = context.get("aws:SourceArn")
                found.append((who, context, f"{called} from {source}" if source else called))
    return found


def _from_named_sources(principal: str, policy: Policy) -> list[tuple[str, dict[str, str], str]]:
    """A service asked about, from each source the policy's conditions name (a pattern's, filled in): a statement
    for everyone (`*`) scoped to sources lets the service in from each of them."""
    if not principal.endswith(".amazonaws.com"):
        return []
    found = []
    for context in sources_of(policy):
        source = context.get("aws:SourceArn")
        found.append((principal, context, f"{principal} from {source}" if source else principal))
    return found


def _among(other: str, context: Mapping[str, str], named: set[str], source: str | None) -> bool:
    """Whether a "somebody else" is one of those named after all: the same principal from the same source, or a
    principal of an account named whole."""
    account = access.account_of(other)
    if account and principal_of(account) in named:
        return True
    return other in named and other != ANONYMOUS and context.get("aws:SourceArn") in (None, source)


def finding_requirement(
    check: str, expected: str, finding: Callable[[Resource], PolicyFinding], hint: str
) -> Requirement:
    """A requirement that holds where `finding(resource)` does, its sentence the learner's (either way)."""
    return require(
        check,
        expected,
        finding,
        compare=lambda found, _: isinstance(found, PolicyFinding) and found.holds,
        explain=lambda found: str(found),
        hint=hint,
    )


def _source(source: Resource | str | None) -> str | None:
    arn = arn_of(source)
    if source is not None and arn is None:
        raise ValueError("source must be an ARN, or a described resource with one (its Arn, TopicArn, ...)")
    return arn


@later
def may(
    principal: str,
    action: str,
    *,
    source: Resource | str | None = None,
    on: str | None = None,
    context: Mapping[str, Any] | None = None,
    document: Document | None = None,
) -> Requirement:
    """The resource's policy lets `principal` (a service such as `events.amazonaws.com`, an account id, an IAM ARN,
    an origin access identity's ARN, or `*` for everyone) do `action`, from `source` when given (an ARN or a
    described resource: the request's `aws:SourceArn` and `aws:SourceAccount`), on the resource (`on=`: another ARN;
    `PREFIX*`: every ARN under PREFIX), with `context` added to the request (e.g. `{"s3:x-amz-acl":
    "bucket-owner-full-control"}`). Without a source, a grant scoped to any source counts."""
    arn = _source(source)
    return finding_requirement(
        f"may {action}",
        f"{_who(principal)}{f' from {arn}' if arn else ''}",
        _may(principal, action, arn, on, context or {}, document or policy_document),
        f"Add a policy statement that allows {action} to {_who(principal)}{f' from {arn}' if arn else ''}.",
    )


@later
def may_not(
    principal: str,
    action: str,
    *,
    source: Resource | str | None = None,
    on: str | None = None,
    context: Mapping[str, Any] | None = None,
    document: Document | None = None,
) -> Requirement:
    """The resource's policy does not let `principal` (from `source`) do `action`: e.g. a distribution that may read
    a bucket's objects may not write them (`may_not(distribution_principal, "s3:PutObject", source=distribution)`).
    A miss names the statement that lets it."""
    arn = _source(source)
    allowed = _may(principal, action, arn, on, context or {}, document or policy_document)

    def finding(resource: Resource) -> PolicyFinding:
        found = allowed(resource)
        return PolicyFinding(not found.holds, found.sentence)

    return finding_requirement(
        f"may not {action}",
        f"{_who(principal)}{f' from {arn}' if arn else ''}",
        finding,
        f"Remove {action} from the statements that allow it to {_who(principal)}.",
    )


@later
def nobody_else_may(
    principals: str | Sequence[str],
    action: str,
    *,
    source: Resource | str | None = None,
    on: str | None = None,
    context: Mapping[str, Any] | None = None,
    document: Document | None = None,
) -> Requirement:
    """Nobody but `principals` (from `source`) may do `action` by the resource's policy: not everyone, not a role of
    another account or of the resource's own, not the same service from another source or account, not another
    origin access identity. A miss names the statement that lets somebody else in."""
    listed = [principals] if isinstance(principals, str) else list(principals)
    arn = _source(source)
    return finding_requirement(
        f"nobody else may {action}",
        " or ".join(map(_who, listed)) + (f" from {arn}" if arn else ""),
        _nobody_else(listed, action, arn, on, context or {}, document or policy_document),
        f"Limit the statements that allow {action} to {' or '.join(map(_who, listed))}"
        + (f" with a Condition on aws:SourceArn {arn}." if arn else "."),
    )


@later
def only_may(
    principal: str,
    action: str,
    *,
    source: Resource | str | None = None,
    on: str | None = None,
    context: Mapping[str, Any] | None = None,
    document: Document | None = None,
) -> Requirement:
    """`principal` (from `source`) may do `action`, and nobody else may (`may` and `nobody_else_may` together, one
    message: what is missing first, else who else gets in)."""
    arn = _source(source)
    read = document or policy_document
    allowed = _may(principal, action, arn, on, context or {}, read)
    exclusive = _nobody_else([principal], action, arn, on, context or {}, read)

    def finding(resource: Resource) -> PolicyFinding:
        first = allowed(resource)
        return exclusive(resource) if first.holds else first

    return finding_requirement(
        f"only they may {action}",
        f"{_who(principal)}{f' from {arn}' if arn else ''}",
        finding,
        f"Allow {action} to {_who(principal)}"
        + (f" with a Condition on aws:SourceArn {arn}" if arn else "")
        + ", and to nobody else.",
    )


def principal_may(
    action: str,
    principal: str,
    document: Callable[[Resource], str | dict[str, Any] | None],
    *,
    source_arn: Resource | str | None = None,
    hint: str,
) -> Requirement:
    """The resource policy `document(resource)` lets `principal` (a service such as `sns.amazonaws.com`, an ARN,
    or an account: its id or root ARN alike) perform `action` on the resource, from `source_arn` if given (an ARN
    or a described resource)."""
    arn = _source(source_arn)
    return finding_requirement(
        f"may {action}",
        f"{principal}{f' from {arn}' if arn else ''}",
        _may(principal, action, arn, None, {}, document),
        hint,
    )


def __getattr__(name: str) -> Any:
    """`PolicyFinding` by its name in 0.2.0 (renamed: `kit.outputs.Finding` is another idea): still answered, with a
    DeprecationWarning."""
    return old_name(__name__, name, globals())
