"""IAM validators: role (trust policy, inline and attached managed policies), user, group, instance profile,
managed policy; and what an identity may do (`may`, `may_not`, `may_only`: see `harness.kit.identity`)."""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from harness.kit import identity, refs
from harness.kit.kinds import Kind, LazyResource, Resource, id_of, register
from harness.kit.later import later
from harness.kit.policy import PolicyError, allowed_principals, parse_policy, principal_of
from harness.kit.require import Requirement, require

Documents = list[tuple[str, Any]]
"""(how the console names a policy, its document) for every policy an identity holds."""

SHOWN_EXTRAS = 8


def _document(value: Any) -> Any:
    """A policy document as IAM returns it: decoded by botocore, or still URL-encoded JSON."""
    return urllib.parse.unquote(value) if isinstance(value, str) and value.startswith("%") else value


def _pages(client: Any, operation: str, key: str, **params: Any) -> list[Any]:
    return [item for page in client.get_paginator(operation).paginate(**params) for item in page[key]]


def _managed_document(iam: Any, arn: str) -> Any:
    policy = iam.get_policy(PolicyArn=arn)["Policy"]
    version = iam.get_policy_version(PolicyArn=arn, VersionId=policy["DefaultVersionId"])["PolicyVersion"]
    return _document(version["Document"])


def _policies_of(iam: Any, entity: str, name: str, suffix: str = "") -> tuple[Documents, list[dict[str, str]]]:
    """Inline and attached policies of a role, user or group (`entity`), named for a learner."""
    key = {"role": "RoleName", "user": "UserName", "group": "GroupName"}[entity]
    documents: Documents = []
    for policy_name in _pages(iam, f"list_{entity}_policies", "PolicyNames", **{key: name}):
        document = getattr(iam, f"get_{entity}_policy")(**{key: name, "PolicyName": policy_name})["PolicyDocument"]
        documents.append((f'inline policy "{policy_name}"{suffix}', _document(document)))
    attached = _pages(iam, f"list_attached_{entity}_policies", "AttachedPolicies", **{key: name})
    for policy in attached:
        named = f"{_managed_label(policy['PolicyArn'])} {policy['PolicyName']}{suffix}"
        documents.append((named, _managed_document(iam, policy["PolicyArn"])))
    return documents, attached


def _managed_label(arn: str) -> str:
    """How a learner knows an attached policy: "AWS managed policy" (one cannot edit it, only detach it) for
    `arn:PARTITION:iam::aws:policy/...`, else "managed policy"."""
    return "AWS managed policy" if arn.split(":")[4:5] == ["aws"] else "managed policy"


def _fetch_role(session: Any, name: str) -> Resource:
    iam = session.client("iam")
    role = iam.get_role(RoleName=name)["Role"]
    role["AssumeRolePolicyDocument"] = _document(role.get("AssumeRolePolicyDocument"))
    held = _lazy_policies(iam, "role", name)
    return LazyResource(role, {"Policies": lambda: held()[0], "AttachedPolicies": lambda: held()[1]})


def _lazy_policies(iam: Any, entity: str, name: str) -> Callable[[], tuple[Documents, list[dict[str, str]]]]:
    cached: list[tuple[Documents, list[dict[str, str]]]] = []

    def load() -> tuple[Documents, list[dict[str, str]]]:
        if not cached:
            cached.append(_policies_of(iam, entity, name))
        return cached[0]

    return load


def _fetch_user(session: Any, name: str) -> Resource:
    iam = session.client("iam")
    user = iam.get_user(UserName=name)["User"]
    own = _lazy_policies(iam, "user", name)

    def groups() -> list[str]:
        return [g["GroupName"] for g in _pages(iam, "list_groups_for_user", "Groups", UserName=name)]

    def policies() -> Documents:
        documents = list(own()[0])
        for group in groups():
            documents += _policies_of(iam, "group", group, f" of group {group}")[0]
        return documents

    return LazyResource(user, {"Policies": policies, "AttachedPolicies": lambda: own()[1], "Groups": groups})


def _fetch_group(session: Any, name: str) -> Resource:
    iam = session.client("iam")
    answer = iam.get_group(GroupName=name)
    group = {**answer["Group"], "Users": [u["UserName"] for u in answer.get("Users", [])]}
    held = _lazy_policies(iam, "group", name)
    return LazyResource(group, {"Policies": lambda: held()[0], "AttachedPolicies": lambda: held()[1]})


def _fetch_instance_profile(session: Any, name: str) -> Resource:
    return session.client("iam").get_instance_profile(InstanceProfileName=name)["InstanceProfile"]


def _fetch_managed_policy(session: Any, arn: str) -> Resource:
    iam = session.client("iam")
    policy = iam.get_policy(PolicyArn=arn)["Policy"]
    return LazyResource(
        policy,
        {"Policies": lambda: [(f"{_managed_label(arn)} {policy['PolicyName']}", _managed_document(iam, arn))]},
    )


ROLE = register(Kind("AWS::IAM::Role", "IAM role", _fetch_role))
"""`get_role`'s role with `AssumeRolePolicyDocument` parsed (`RoleName`, `Arn`, `Path`) plus `Policies` (its inline
policies) and `AttachedPolicies`, each read when first used."""
USER = register(Kind("AWS::IAM::User", "IAM user", _fetch_user))
"""`get_user`'s user (`UserName`, `Arn`) plus `Policies` (its inline policies and its groups'), `AttachedPolicies`
and `Groups` (their names), each read when first used."""
GROUP = register(Kind("AWS::IAM::Group", "IAM group", _fetch_group))
"""`get_group`'s group (`GroupName`, `Arn`) with `Users` (their names), plus `Policies` and `AttachedPolicies`, each
read when first used."""
INSTANCE_PROFILE = register(Kind("AWS::IAM::InstanceProfile", "instance profile", _fetch_instance_profile))
"""`get_instance_profile`'s profile: `{"InstanceProfileName", "Arn", "Roles": [{"RoleName", "Arn"}]}`."""
MANAGED_POLICY = register(Kind("AWS::IAM::ManagedPolicy", "managed policy", _fetch_managed_policy))
"""`get_policy`'s policy (`PolicyName`, `Arn`, `DefaultVersionId`) plus `Policies`, its default version as `[(label,
document)]`, read when first used."""


# --- trust policy -------------------------------------------------------------------------------------------


def _trusted(role: Resource) -> list[str] | str:
    """The principals the trust policy lets assume the role (sts:AssumeRole, as IAM evaluates the policy: a Deny
    takes a principal away; a condition on the source counts when some source meets it), or why it cannot be
    read."""
    try:
        trust = parse_policy(role.get("AssumeRolePolicyDocument") or {}, kind="trust")
    except PolicyError as error:
        return f"its trust policy is not valid: {error}"
    return sorted({principal_of(value) for value in allowed_principals(trust, "sts:AssumeRole")})


def trusts(principal: str) -> Requirement:
    """The trust policy lets `principal` assume the role: a service (`lambda.amazonaws.com`), an ARN or an account."""
    wanted = principal_of(principal)
    return require(
        "trusted principals",
        wanted,
        _trusted,
        compare=lambda actual, expected: isinstance(actual, list) and expected in actual,
        explain=lambda actual: (
            actual
            if isinstance(actual, str)
            else f"its trust policy lets {', '.join(actual) or 'no one'} assume it, not {wanted}."
        ),
        hint=f"Edit the role's trust relationships: allow sts:AssumeRole to {principal}.",
    )


def trusted_only_by(*principals: str) -> Requirement:
    """The trust policy lets exactly these principals assume the role, nobody else."""
    wanted = sorted(principal_of(p) for p in principals)
    return require(
        "trusted principals",
        wanted,
        _trusted,
        explain=lambda actual: (
            actual
            if isinstance(actual, str)
            else f"its trust policy lets {', '.join(actual) or 'no one'} assume it; only {', '.join(wanted)} should."
        ),
        hint="Edit the role's trust relationships so that only the principals the step names may assume it.",
    )


# --- attached managed policies ------------------------------------------------------------------------------


def _policy_name(name_or_arn: str) -> str:
    return name_or_arn.rsplit("/", 1)[-1]


def _attached(resource: Resource) -> list[str]:
    return sorted(p["PolicyArn"] for p in resource["AttachedPolicies"])


def has_managed_policy(name_or_arn: str) -> Requirement:
    """The managed policy is attached: its ARN (then an AWS managed policy and a customer policy of the same name
    differ), or its name, e.g. `AWSLambdaBasicExecutionRole` (any policy of that name)."""
    return refs.refers_among(
        "attached managed policies",
        refs.MANAGED_POLICY,
        name_or_arn,
        _attached,
        hint=f"Attach the managed policy {_policy_name(name_or_arn)}.",
    )


def managed_policies_exactly(*names_or_arns: str) -> Requirement:
    """Exactly these managed policies are attached (names or ARNs, as `has_managed_policy` reads them), no
    others."""
    return refs.refers_exactly("attached managed policies", refs.MANAGED_POLICY, names_or_arns, _attached)


# --- what the identity may do -------------------------------------------------------------------------------


def _held(resource: Resource) -> tuple[list[identity.Source], list[str]]:
    return identity.sources(resource["Policies"])


def _verdict(action: str, target: str) -> Callable[[Resource], identity.AccessVerdict]:
    def verdict(resource: Resource) -> identity.AccessVerdict:
        held, invalid = _held(resource)
        if invalid:
            return identity.AccessVerdict("undecided", invalid[0])
        return identity.decide(held, action, target)

    return verdict


@later
def may(action: str, resource: str = "*") -> Requirement:
    """Its policies allow `action` on the ARN `resource` (no Deny; a Condition makes it undecided, so a miss)."""
    return require(
        f"may {action}",
        "allowed",
        _verdict(action, resource),
        compare=lambda verdict, _: verdict.allowed,
        explain=lambda verdict: f"{verdict.reason}.",
        hint=f"Grant {action} on {resource} in a policy of the identity.",
    )


@later
def may_not(action: str, resource: str = "*") -> Requirement:
    """Its policies do not allow `action` on `resource` (an Allow under a Condition is a miss: it may apply)."""
    return require(
        f"may not {action}",
        "not allowed",
        _verdict(action, resource),
        compare=lambda verdict, _: verdict.decision in ("denied", "not allowed"),
        explain=lambda verdict: f"{verdict.reason}, but it should not.",
        hint=f"Remove {action} from the identity's policies.",
    )


@dataclass(frozen=True)
class Grant:
    """Actions the identity should be able to perform on resources (ARNs): one part of a least-privilege check."""

    actions: tuple[str, ...]
    resources: tuple[str, ...]

    def __str__(self) -> str:
        return f"{', '.join(self.actions)} on {', '.join(self.resources)}"


@later
def grant(actions: Iterable[str], resources: Iterable[Resource | str | None] = ("*",), *, key: str = "Arn") -> Grant:
    """`actions` on `resources` (ARNs, or described resources read under `key`, e.g. `key="TableArn"`)."""
    return Grant(tuple(sorted(actions, key=str.lower)), tuple(sorted(str(id_of(r, key)) for r in resources)))


@later
def may_only(
    actions: Iterable[str], resources: Iterable[Resource | str | None] = ("*",), *, key: str = "Arn"
) -> Requirement:
    """Least privilege: the identity may do every one of `actions` on every one of `resources` (ARNs or
    described resources, read under `key`), and nothing more: the extra actions are named."""
    return may_exactly(grant(actions, resources, key=key))


@later
def may_exactly(*grants: Grant) -> Requirement:
    """Least privilege over several grants, e.g. table actions on the table and log actions on its log streams:
    every grant is allowed, and nothing beyond them (an action is judged on the resources of its grants, read
    against the resources it can be requested on: `log-group:NAME:*` is exactly NAME's log streams for
    logs:PutLogEvents). A miss names the policy and the Action or Resource that reaches too far."""
    asked: dict[str, list[str]] = {}
    for g in grants:
        for action in g.actions:
            asked.setdefault(action, []).extend(g.resources)

    def assess(resource: Resource) -> dict[str, Any]:
        held, invalid = _held(resource)
        if invalid:
            return {"invalid": invalid}
        requests = [(a, r) for g in grants for a in g.actions for r in g.resources]
        missing = [(a, r, v) for a, r in requests if not (v := identity.decide(held, a, r)).allowed]
        extras = identity.extra_permissions(held, asked)
        over, fixes = _overreach(extras, asked)
        fixes = _grant_missing([(a, r) for a, r, _ in missing], asked) + fixes
        return {
            "missing": [v.reason for _, _, v in missing],
            "extra": [str(e) for e in extras],
            "over": over,
            "fix": fixes[0] if fixes else None,
        }

    return require(
        "permissions",
        f"only {'; '.join(map(str, grants))}",
        assess,
        compare=lambda found, _: not found.get("invalid") and not found["missing"] and not found["extra"],
        explain=_least_privilege_issue,
        hint=lambda found: (
            found.get("fix") or "Grant exactly the actions the step names, on the resources it names, and nothing else."
        ),
    )


MANAGED_GRANTS: dict[str, dict[str, tuple[str, ...]]] = {
    "AWSLambdaBasicExecutionRole": {
        "logs:CreateLogGroup": ("*",),
        "logs:CreateLogStream": ("*",),
        "logs:PutLogEvents": ("*",),
    },
    "AWSLambdaSQSQueueExecutionRole": {
        "sqs:ReceiveMessage": ("*",),
        "sqs:DeleteMessage": ("*",),
        "sqs:GetQueueAttributes": ("*",),
        "logs:CreateLogGroup": ("*",),
        "logs:CreateLogStream": ("*",),
        "logs:PutLogEvents": ("*",),
    },
}
"""What some AWS managed policies a step may name grant (action -> Resource), to suggest one where it grants
what is missing and nothing beyond what the step asks."""


def _grant_missing(missing: list[tuple[str, str]], asked: dict[str, list[str]]) -> list[str]:
    """The fix for permissions not granted: the AWS managed policy that grants them without reaching beyond the
    step's grants, where the kit knows one, else granting the first in a policy of the identity."""
    if not missing:
        return []
    wanted = {a.lower() for a, _ in missing}
    asked_on = {a.lower(): set(r) for a, r in asked.items()}
    for name, grants in MANAGED_GRANTS.items():
        granted = {a.lower(): set(r) for a, r in grants.items()}
        if wanted <= granted.keys() and all(asked_on.get(a, set()) >= r for a, r in granted.items()):
            return [f"Attach the AWS managed policy {name} (it grants {', '.join(grants)} on *)."]
    action, resource = missing[0]
    return [f"Grant {action} on {resource} in a policy of the identity."]


def _overreach(extras: list[identity.Extra], asked: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """One sentence per statement part that grants too much (an Action pattern reaching unasked actions, or a
    Resource wider than asked), and for each the change that fixes it."""
    named: dict[str, list[str]] = {}  # source -> unasked actions it spells out
    reached: dict[tuple[str, str], list[str]] = {}  # (source, wildcard or NotAction) -> unasked actions it reaches
    wider: dict[tuple[str, tuple[str, ...]], list[str]] = {}  # (source, Resource patterns) -> asked actions
    for e in extras:
        if e.resources:
            wider.setdefault((e.source, e.resources), []).append(e.action)
        elif e.via.lower() == e.action.lower():
            named.setdefault(e.source, []).append(e.action)
        else:
            reached.setdefault((e.source, e.via), []).append(e.action)
    conditional = {e.action for e in extras if e.conditional}
    over: list[str] = []
    fixes = [
        f"Detach the {source} (an AWS managed policy cannot be edited): grant only what the step names instead."
        for source in dict.fromkeys(e.policy for e in extras)
        if source.startswith("AWS managed policy ")
    ]
    for source, actions in named.items():
        under = " (under a Condition)" if set(actions) <= conditional else ""
        them = "it" if len(actions) == 1 else "them"
        over.append(f"it may also {_some(actions)}{under} ({source} allows {them})")
        if not source.startswith("AWS managed policy "):  # detached, not edited (above)
            fixes.append(f"Remove {', '.join(actions)} from {source}.")
    for (source, via), actions in reached.items():
        under = " (under a Condition)" if set(actions) <= conditional else ""
        over.append(f"it may also {_some(actions)}{under} ({source} allows {via})")
        kept = (
            [] if via.startswith("NotAction") else sorted((a for a in asked if identity.covers(via, a)), key=str.lower)
        )
        instead = f"only {', '.join(kept)}" if kept else "only the actions the step names"
        fixes.append(f"Replace {via} in {source} with {instead}.")
    for (source, patterns), actions in wider.items():
        wanted = sorted({r for a in actions for r in asked.get(a, ())})
        on = ", ".join(patterns)
        them = "it" if len(actions) == 1 else "them"
        over.append(f"it may also {', '.join(actions)} on {on} ({source} allows {them} beyond {', '.join(wanted)})")
        fixes.append(f"Narrow the Resource {on} in {source} to {', '.join(wanted)}.")
    return over, fixes


def _some(actions: list[str]) -> str:
    """The first SHOWN_EXTRAS actions, "and N more" for the rest: an AWS managed policy spells out dozens."""
    more = f" and {len(actions) - SHOWN_EXTRAS} more" if len(actions) > SHOWN_EXTRAS else ""
    return f"{', '.join(actions[:SHOWN_EXTRAS])}{more}"


def _least_privilege_issue(found: dict[str, Any]) -> str:
    if found.get("invalid"):
        return f"{found['invalid'][0]}."
    parts = []
    if found["missing"]:
        parts.append("; ".join(found["missing"]))
    if found["over"]:
        parts.append("; ".join(found["over"]))
    return "; ".join(parts) + "."


# --- users, groups, instance profiles -----------------------------------------------------------------------


@later
def in_group(group: Resource | str | None) -> Requirement:
    """The user is a member of the group (a described group, its name or ARN)."""
    return refs.refers_among("groups", refs.GROUP, group, lambda user: sorted(user["Groups"]))


@later
def holds_role(role: Resource | str | None) -> Requirement:
    """The instance profile holds the role (a described role, its name or ARN; a profile holds at most one)."""
    return refs.refers_among(
        "role", refs.ROLE, role, lambda profile: sorted(r["RoleName"] for r in profile.get("Roles", []))
    )


# --- ARNs --------------------------------------------------------------------------------------------------------


def _iam_arn(resource: str) -> refs.ArnPart:
    """`role/PATH/NAME`: the name, without its path (IAM names ignore case)."""
    kind, _, rest = refs.split_resource(resource)
    return kind, rest.rsplit("/", 1)[-1], None


refs.reads_arns("iam", _iam_arn, caseless=True)
