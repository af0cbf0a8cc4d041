"""Mutants of a solve: each write call it made, replayed with one parameter got wrong, or left out.

A learner's mistakes are mostly one value off: a boolean the other way, a port or a CIDR next door, an enum's
sibling, a zone over, a list member missing or extra, a policy a little too wide or too narrow, a key misspelt,
another resource of the same type referred to (another key, group, log group, an older revision), a plausible
other value for a free string (cpu 512, engine mysql), or an attribute call forgotten. `mutants(calls)` lists
those of a recorded solve; each names its call by operation and ordinal (`CreateSubnet#2`) so an author can mark
one acceptable (`@equivalent`).
"""

from __future__ import annotations

import copy
import fnmatch
import ipaddress
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import urlsplit

import botocore.session
from botocore.exceptions import UnknownServiceError
from botocore.model import Shape

from harness.kit.aws import service_for_type

ZONE = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9][a-z]")
ID = re.compile(r"([a-z0-9]+)-[0-9a-f]{6,}")
DOCUMENT_PARAM = re.compile(r"(Policy(Document)?|Pattern|[Dd]efinition)$")
"""A parameter (or attribute) whose string value is a JSON document the evaluators read: a resource or IAM policy,
an SQS redrive policy, an SNS filter policy, an EventBridge event pattern, a Step Functions definition."""
COUNTING = re.compile(r"(?i)count|max|min|attempts|retries|threshold|limit")
"""A number that counts or bounds something (`maxReceiveCount`, `MaxAttempts`): one more, and twice as many, are
the learner's two slips ("at most 5" read as 6, a limit doubled)."""
OTHER_SERVICE = "lambda.amazonaws.com"
"""The service a principal is swapped for (the trust or resource policy given to the wrong service); Lambda's own
is swapped for EC2's."""
LABEL_PARAMS = ("CidrBlock", "Name", "GroupName", "Bucket", "FunctionName", "TableName", "RoleName", "TopicName")
OTHER_ACCOUNT = "arn:aws:iam::111122223333:root"
ENGINES = {
    "postgres": "mysql",
    "mysql": "postgres",
    "mariadb": "mysql",
    "aurora-postgresql": "aurora-mysql",
    "aurora-mysql": "aurora-postgresql",
    "redis": "memcached",
    "memcached": "redis",
}
"""Database engines, each with the one a learner takes instead (botocore models `Engine` as a plain string)."""
SIZES = ("nano", "micro", "small", "medium", "large", "xlarge", "2xlarge", "4xlarge")
_ARN = re.compile(r"arn:(?P<partition>[^:]+):(?P<service>[^:]*):(?P<region>[^:]*):(?P<account>[^:]*):(?P<resource>.+)")
_REVISION = re.compile(r":(\d+)$")
KMS_KEY_PARAM = re.compile(r"(?i)(^|\.)(kms)?key(id|arn)?$|kmskey")
"""A parameter that names a KMS key (`KmsKeyId`, `KeyId`, `kmsKeyArn`, `KMSKey`)."""
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_ARN_SERVICES = {"elasticloadbalancing": "elbv2", "execute-api": "apigatewayv2"}
"""ARN service names that are not botocore's name for the service."""


@dataclass(frozen=True)
class Call:
    """One write call a solve made: the operation, the parameters as passed, and what came back."""

    service: str
    operation: str
    ordinal: int  # the n-th call of this operation in the solve, from 1
    params: dict[str, Any]
    response: dict[str, Any]
    shape: Shape | None = field(default=None, compare=False, repr=False)
    # the response as parsed, before botocore's after-call handlers changed it (IAM's policy documents still
    # URL-encoded): what an omitted call answers, since those handlers run on that answer again
    parsed: dict[str, Any] | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        """`CreateSubnet`, or `CreateSubnet#2` for the second one."""
        return self.operation if self.ordinal == 1 else f"{self.operation}#{self.ordinal}"


@dataclass(frozen=True)
class Mutant:
    """The solve with its call `index` (among its write calls) changed: `params` sent instead, or omitted (None)."""

    id: str
    index: int
    call: Call
    change: str  # learner-readable: "`MapPublicIpOnLaunch` false", "without the ModifySubnetAttribute call"
    params: dict[str, Any] | None


class Known:
    """The resources a solve was handed or made (id -> CloudFormation type), found by what a call's value names.

    A value names a resource by its parsed identity, never by a substring: an ARN is that ARN, or the resource it
    ends with in its service (`arn:...:key/ID` is the key ID); a URL is its path (an emulator's queue URL and AWS's
    name the same queue); a plain id (`orders`) names a resource of that id in the service the call is made to, so
    a queue named `orders` is not the table `orders`. Across services (`across`), only a plain id no other resource
    could have: an AWS id (`sg-0abc`), a UUID, a name with a slash (`/ecs/orders`, `alias/orders`).
    """

    def __init__(self, types: Mapping[str, str]) -> None:
        self.types = dict(types)
        self._index: dict[tuple[str, ...], str] = {}
        for rid, resource_type in self.types.items():
            self._index.setdefault(_identity(rid, service_for_type(resource_type)), rid)

    def named(self, value: Any, service: str, *, across: bool = False) -> str | None:
        """The id of the known resource `value` (met in a call to botocore's `service`) names, or None."""
        if not isinstance(value, str) or not value:
            return None
        found = self._index.get(_identity(value, service))
        if found is None and (arn := _ARN.fullmatch(value)) is not None:
            arn_service = _ARN_SERVICES.get(arn["service"], arn["service"])
            resource = arn["resource"].removesuffix(":*")
            tails = [resource.split(sep, 1)[1] for sep in "/:" if sep in resource] + [re.split("[/:]", resource)[-1]]
            found = next((self._index[k] for t in tails if (k := ("id", arn_service, t)) in self._index), None)
            if found is None and arn["service"] == "sqs":  # a queue's ARN names the queue its URL names
                found = self._index.get(("url", f"/{arn['account']}/{resource}"))
        if found is None and across and (ID.fullmatch(value) or _UUID.fullmatch(value) or "/" in value):
            found = next((rid for key, rid in self._index.items() if key[0] == "id" and key[2] == value), None)
        return found

    def named_by(self, calls: Sequence[Call]) -> dict[str, str]:
        """Those of these resources the calls name (in their parameters or answers): id -> type."""
        named = {
            rid
            for call in calls
            for leaf in (*strings(call.params), *strings(call.response))
            if (rid := self.named(leaf, call.service)) is not None
        }
        return {rid: t for rid, t in self.types.items() if rid in named}


def _identity(value: str, service: str) -> tuple[str, ...]:
    if value.startswith("arn:"):
        return ("arn", value)
    if value.startswith(("http://", "https://")):
        return ("url", urlsplit(value).path.rstrip("/"))
    return ("id", service, value)


@dataclass(frozen=True)
class _Change:
    path: tuple[str | int, ...]
    value: Any
    short: str  # for the id: "AvailabilityZone=us-east-1c"
    words: str  # for people: "`AvailabilityZone` us-east-1c instead of us-east-1b"


def mutants(
    calls: Sequence[Call],
    known_ids: Sequence[str] = (),
    existing: Mapping[str, str] | None = None,
    created: Mapping[str, str] | None = None,
) -> list[Mutant]:
    """Every mutant of the solve whose write calls are `calls`; `known_ids` (and ids made before) may swap for an id.

    With `existing` (id -> CloudFormation type of what is there before the solve: handles, what earlier solves
    made) and `created` (what the solve made), a reference to one of them swaps for another resource of the same
    type that exists when the call is made (`Known`), written in the same form (id, ARN, name).
    """
    found: list[Mutant] = []
    made_here = Known(created or {})
    for index, call in enumerate(calls):
        made = [value for earlier in calls[:index] for value in strings(earlier.response) if ID.fullmatch(value)]
        ids = list(dict.fromkeys([*known_ids, *made]))  # what exists when the call is made
        there = Known({**(existing or {}), **made_here.named_by(calls[:index])})
        scope = _Scope(ids, there, call.service)
        for change in _changes(call.params, call.shape, (), scope):
            params = _replaced(call.params, change.path, change.value)
            found.append(Mutant(f"{call.name} {change.short}", index, call, change.words, params))
        if _omittable(index, calls) and not _one_flag(call, found):
            found.append(Mutant(f"omit {call.name}", index, call, f"without the {call.operation} call", None))
    unique: dict[str, Mutant] = {}
    for mutant in found:
        unique.setdefault(mutant.id, mutant)
    return list(unique.values())


def subject(call: Call, calls: Sequence[Call]) -> str:
    """What the call acts on, as a learner would name it: "subnet 10.0.2.0/24", "bucket web-tier-site"."""
    made_by = {value: earlier for earlier in calls for value in strings(earlier.response) if _is_id(value)}
    for key, value in call.params.items():
        if isinstance(value, str) and value in made_by and made_by[value] is not call:
            return subject(made_by[value], calls)
        if key in LABEL_PARAMS and isinstance(value, str):
            noun = _noun(call.operation) if call.operation.startswith("Create") else _words(key)
            return f"{noun} {value}"
    for key, value in call.params.items():
        if isinstance(value, str) and _is_id(value):
            return f"{_words(key.removesuffix('Id').removesuffix('Arn'))} {value}"
    return _noun(call.operation)


def _one_flag(call: Call, found: Sequence[Mutant]) -> bool:
    """The call sets one boolean (beside ids), already flipped by a mutant: leaving the call out leaves the
    default, which is either that flip or what the solve set (EC2's `Modify*Attribute`)."""
    changes = [m for m in found if m.call is call]
    values = [v for v in leaves(call.params) if not (isinstance(v, str) and _is_id(v))]
    return len(values) == 1 and isinstance(values[0], bool) and len(changes) >= 1


def leaves(value: Any) -> Iterator[Any]:
    """Every value inside `value`'s dicts and lists, depth first."""
    if isinstance(value, dict):
        for member in value.values():
            yield from leaves(member)
    elif isinstance(value, list):
        for member in value:
            yield from leaves(member)
    else:
        yield value


def _omittable(index: int, calls: Sequence[Call]) -> bool:
    """A call nothing later depends on: none of the ids it returned is passed to a later call."""
    made = {value for value in strings(calls[index].response) if _is_id(value)}
    if not made:
        return True
    later = json.dumps([call.params for call in calls[index + 1 :]], default=str)
    return not any(value in later for value in made)


def _changes(value: Any, shape: Shape | None, path: tuple[str | int, ...], scope: _Scope) -> Iterator[_Change]:
    """Mutants of one value at `path`, by its botocore type (without a shape, by its Python type): a structure's or
    a map's members, a list's, a string's, a boolean's or a number's."""
    type_name = shape.type_name if shape is not None else _type_of(value)
    if type_name == "structure" and isinstance(value, dict):
        for key, member in value.items():
            member_shape = shape.members.get(key) if shape is not None else None
            yield from _changes(member, member_shape, (*path, key), scope)
    elif type_name == "map" and isinstance(value, dict):
        yield from _map_changes(value, shape, path, scope)
    elif type_name == "list" and isinstance(value, list):
        yield from _list_changes(value, shape, path, scope)
    elif isinstance(value, str):
        yield from _string_changes(value, shape, path, scope)
    else:
        yield from _scalar_changes(value, type_name, path)


def _map_changes(
    value: dict[str, Any], shape: Shape | None, path: tuple[str | int, ...], scope: _Scope
) -> Iterator[_Change]:
    """Each key of a map misspelt (`key-x`), and each of its values mutated."""
    name = _name(path)
    value_shape = shape.value if shape is not None else None
    for key, member in value.items():
        renamed = {(f"{k}-x" if k == key else k): v for k, v in value.items()}
        yield _Change(path, renamed, f"{name}[{key}]->{key}-x", f"`{name}` key `{key}` renamed `{key}-x`")
        yield from _changes(member, value_shape, (*path, key), scope)


def _scalar_changes(value: Any, type_name: str, path: tuple[str | int, ...]) -> Iterator[_Change]:
    """A boolean the other way; an integer a near other (`_other_numbers`; a range's start is left alone: its end
    one wider says the same); a float doubled."""
    name = _name(path)
    if type_name == "boolean" and isinstance(value, bool):
        yield _Change(path, not value, f"{name}={str(not value).lower()}", f"`{name}` {str(not value).lower()}")
    elif type_name in ("integer", "long") and isinstance(value, int) and not name.split(".")[-1].startswith("From"):
        for changed in _other_numbers(path, value):
            yield _Change(path, changed, f"{name}={changed}", f"`{name}` {changed} instead of {value}")
    elif type_name in ("float", "double") and isinstance(value, int | float):
        doubled = value * 2 if value else 1.0
        yield _Change(path, doubled, f"{name}={doubled:g}", f"`{name}` {doubled:g} instead of {value:g}")


def _list_changes(value: list, shape: Shape | None, path: tuple[str | int, ...], scope: _Scope) -> Iterator[_Change]:
    name = _name(path)
    member_shape = shape.member if shape is not None else None
    if len(value) > 1:
        for index, member in enumerate(value):
            shown = member if isinstance(member, str) else f"member {index + 1}"
            dropped = value[:index] + value[index + 1 :]
            yield _Change(path, dropped, f"{name}-[{index}]", f"`{name}` without {shown}")
    if value and not isinstance(value[-1], str) and not any(isinstance(p, int) for p in path):
        extra = next(_changes(value[-1], member_shape, (), scope), None)
        if extra is not None:
            added = [*value, _replaced(value[-1], extra.path, extra.value)]
            yield _Change(path, added, f"{name}+[{extra.short}]", f"`{name}` with an extra member ({extra.words})")
    for index, member in enumerate(value):
        # a member of a longer list swapped for another id says what its drop says: members are not swapped then
        yield from _changes(member, member_shape, (*path, index), scope if len(value) == 1 else scope.fixed())


def _string_changes(value: str, shape: Shape | None, path: tuple[str | int, ...], scope: _Scope) -> Iterator[_Change]:
    """Mutants of one string parameter: the first rule that reads `value` says what else a learner might have sent
    (a JSON document's mutants are its own)."""
    name = _name(path)
    others = _swapped_values(value, shape, scope)
    if others is None and path and DOCUMENT_PARAM.search(str(path[-1])) and (document := _document(value)) is not None:
        yield from _document_changes(document, path, scope)
        return
    for other in _other_values(value, path, scope) if others is None else others:
        yield _Change(path, other, f"{name}={other}", f"`{name}` {other} instead of {value}")


def _swapped_values(value: str, shape: Shape | None, scope: _Scope) -> list[str] | None:
    """What a value of a known set stands beside: another resource of its type, the next of its enum, another
    availability zone, another network; None when `value` is of none of these sets."""
    enum = list(getattr(shape, "enum", None) or [])
    named = scope.known.named(value, scope.service, across=True) if scope.swaps else None
    if named is not None:
        return list(_other_references(value, named, scope))
    if value in enum and len(enum) > 1:
        return [enum[(enum.index(value) + 1) % len(enum)]]
    if ZONE.fullmatch(value):
        return [value[:-1] + ("b" if value[-1] != "b" else "c")]
    if "/" in value and (network := _network(value)) is not None:
        return [_other_network(network)]
    return None


def _other_values(value: str, path: tuple[str | int, ...], scope: _Scope) -> list[str]:
    """What a value of no known set might have been instead: another count, key, id of the same prefix, the
    service's default key, a plausible other (`_plausible_other`), another value a pattern matches; none when no
    rule reads it."""
    name = _name(path)
    if value.isdigit() and len(value) <= 6 and COUNTING.search(name.split(".")[-1]):
        return [str(number) for number in _other_numbers(path, int(value))]
    if path and path[-1] == "Key":
        return [f"{value}-x"]
    if (match := ID.fullmatch(value)) is not None:
        sibling = next((i for i in scope.ids if i != value and i.startswith(match.group(1) + "-")), None)
        return [sibling] if sibling is not None else []
    if KMS_KEY_PARAM.search(name) and scope.service != "kms" and "alias/aws/" not in value:
        return [_managed_key(value, scope.service)]  # a key the solve does not know of (made elsewhere): the default
    if (other := _plausible_other(value, name)) is not None:
        return [other]
    if scope.document and path and isinstance(path[-1], int):  # a value an event pattern or filter matches
        return [f"{value}-other"]
    return []


@dataclass(frozen=True)
class _Scope:
    """What a call's values may be swapped for: ids that exist when it is made (`ids`, by prefix), the typed
    resources that exist then (`known`), and the call's service; `swaps` False inside a list of several."""

    ids: list[str]
    known: Known
    service: str
    swaps: bool = True
    document: bool = False  # inside a JSON document (a pattern's, a filter's values are matched as written)

    def fixed(self) -> _Scope:
        """The same scope without swaps: in a longer list a swapped member says what its drop says."""
        return _Scope([], self.known, self.service, swaps=False, document=self.document)

    def inside(self) -> _Scope:
        """The same scope, for the values inside a JSON document."""
        return _Scope(self.ids, self.known, self.service, self.swaps, document=True)


def _other_references(value: str, named: str, scope: _Scope) -> Iterator[str]:
    """Other existing resources of the type `value` refers to (it names the known `named`), in `value`'s form: the
    next one of the same type; for a KMS key or alias, the service's AWS managed key (the default a learner
    leaves); for a task definition revision N, revision N-1."""
    kind = scope.known.types[named]
    others = [rid for rid, t in scope.known.types.items() if t == kind and rid != named]
    if others:
        yield _in_form(value, named, others[0])
    if kind in ("AWS::KMS::Key", "AWS::KMS::Alias") and scope.service != "kms":
        yield _managed_key(value, scope.service)
    if kind == "AWS::ECS::TaskDefinition" and (revision := _REVISION.search(value)) and int(revision[1]) > 1:
        yield f"{value[: revision.start()]}:{int(revision[1]) - 1}"


def _managed_key(value: str, service: str) -> str:
    """The service's AWS managed key (`alias/aws/ssm`), written as `value` writes its key (an ARN, or not)."""
    managed = f"alias/aws/{service}"
    arn = _ARN.fullmatch(value)
    return f"arn:{arn['partition']}:kms:{arn['region']}:{arn['account']}:{managed}" if arn else managed


def _in_form(value: str, named: str, other: str) -> str:
    """`other` written as `value` writes `named`: the id itself, or an ARN whose resource ends with it (a queue's
    ARN for its URL)."""
    arn = _ARN.fullmatch(value)
    if arn and arn["service"] == "sqs" and other.startswith(("http://", "https://")):
        account, _, name = urlsplit(other).path.strip("/").partition("/")
        return f"arn:{arn['partition']}:sqs:{arn['region']}:{account}:{name}"
    if value == named or other.startswith("arn:") or not value.endswith(named):
        return other
    return value[: -len(named)] + other


def _plausible_other(value: str, name: str) -> str | None:
    """Another value a learner might give an unconstrained string (botocore models no enum for it): a number
    doubled (task cpu `256` -> `512`), a major version down (`16.3` -> `15.3`), another engine, an instance class
    one size up."""
    last = name.split(".")[-1].split("[")[0]
    if value.isdigit() and len(value) <= 6 and not last.endswith(("Key", "Id", "Name")):
        return str(int(value) * 2 or 1)
    if last.endswith("Version") and (version := re.fullmatch(r"(\d+)((?:\.\d+)+)", value)):
        major = int(version[1])
        return f"{major - 1 if major > 1 else major + 1}{version[2]}"
    if value in ENGINES:
        return ENGINES[value]
    if (size := re.fullmatch(r"((?:db|cache)\.[a-z0-9-]+\.)([a-z0-9]+)", value)) and size[2] in SIZES[:-1]:
        return size[1] + SIZES[SIZES.index(size[2]) + 1]
    return None


def _document_changes(document: dict[str, Any], path: tuple[str | int, ...], scope: _Scope) -> Iterator[_Change]:
    """Mutants of a JSON document passed as a string: a policy's statements (`_policy_changes`), else any value
    inside it as the parameters' own are mutated (a redrive policy's count and target, a pattern's values)."""
    name = _name(path)
    if "Statement" in document:
        for change in _policy_changes(document):
            yield _Change(path, json.dumps(change.value), f"{name}.{change.short}", f"the policy's {change.words}")
        return
    for change in _changes(document, None, (), scope.inside()):
        changed = _replaced(document, change.path, change.value)
        yield _Change(path, json.dumps(changed), f"{name}.{change.short}", f"`{name}` with {change.words}")


@dataclass(frozen=True)
class _Statement:
    """One statement of a policy, as its mutants see it: where it is, how it is named, what it holds."""

    policy: dict[str, Any]
    where: tuple[str | int, ...]
    label: str  # "Statement[0]"
    body: dict[str, Any]

    def with_(self, key: str, value: Any) -> dict[str, Any]:
        """The policy with this statement's `key` set to `value`."""
        return _replaced(self.policy, (*self.where, key), value)

    def change(self, key: str, value: Any, short: str, words: str) -> _Change:
        return _Change((), self.with_(key, value), f"{self.label}.{short}", f"{self.label} {words}")


def _policy_changes(policy: dict[str, Any]) -> Iterator[_Change]:
    """A policy's mutants, statement by statement: its actions, resources, principal and condition."""
    for statement in _statements(policy):
        yield from _action_changes(statement)
        yield from _resource_changes(statement)
        yield from _principal_changes(statement)
        yield from _condition_changes(statement)


def _statements(policy: dict[str, Any]) -> Iterator[_Statement]:
    statements = policy.get("Statement")
    listed = isinstance(statements, list)
    for index, body in enumerate(statements if isinstance(statements, list) else [statements]):
        if isinstance(body, dict):
            where: tuple[str | int, ...] = ("Statement", index) if listed else ("Statement",)
            yield _Statement(policy, where, f"Statement[{index}]" if listed else "Statement", body)


def _action_changes(statement: _Statement) -> Iterator[_Change]:
    """Actions widened to the service's `*`, one more read of the service, one dropped."""
    for key in ("Action", "NotAction"):
        actions = statement.body.get(key)
        if actions is None:
            continue
        listing = [actions] if isinstance(actions, str) else list(actions)
        service = str(listing[0]).split(":")[0] if listing and ":" in str(listing[0]) else ""
        if service and f"{service}:*" not in listing and "*" not in listing:
            yield statement.change(key, f"{service}:*", f"{key}={service}:*", f"{key} widened to {service}:*")
        extra = _sibling_action(service, listing) if key == "Action" else None
        if extra is not None:
            yield statement.change(key, [*listing, extra], f"{key}+{extra}", f"{key} with {extra} too")
        if len(listing) > 1:
            for dropped in listing:
                rest = [a for a in listing if a != dropped]
                yield statement.change(key, rest, f"{key}-{dropped}", f"{key} without {dropped}")


def _resource_changes(statement: _Statement) -> Iterator[_Change]:
    """Resources widened to `*`, or narrowed to a part of each."""
    resource = statement.body.get("Resource")
    if resource is None or resource == "*":
        return
    yield statement.change("Resource", "*", "Resource=*", "Resource widened to *")
    listing = [resource] if isinstance(resource, str) else list(resource)
    narrow = [r[:-2] + "/private/*" if str(r).endswith("/*") else f"{r}/private/*" for r in listing]
    shown = narrow[0] if isinstance(resource, str) else narrow
    yield statement.change("Resource", shown, "Resource=narrowed", f"Resource narrowed to {', '.join(narrow)}")


def _principal_changes(statement: _Statement) -> Iterator[_Change]:
    """Anyone narrowed to another account; a principal widened to anyone; a service or account swapped."""
    principal = statement.body.get("Principal")
    if principal is None:
        return
    if principal in ("*", {"AWS": "*"}, {"AWS": ["*"]}):
        other = {"AWS": OTHER_ACCOUNT}
        yield statement.change("Principal", other, "Principal=account", f"Principal narrowed to {OTHER_ACCOUNT}")
        return
    yield statement.change("Principal", "*", "Principal=*", "Principal widened to *")
    if not isinstance(principal, dict):
        return
    for kind, swapped in (("Service", _other_service), ("AWS", _other_account)):
        value = principal.get(kind)
        listing = value if isinstance(value, list) else [value]
        first = listing[0] if listing else None
        if isinstance(first, str) and first != "*" and (changed := swapped(first)) is not None:
            new = {**principal, kind: changed if isinstance(value, str) else [changed, *listing[1:]]}
            yield statement.change("Principal", new, f"Principal.{kind}={changed}", f"Principal {kind} {changed}")


def _other_service(service: str) -> str:
    return "ec2.amazonaws.com" if service == OTHER_SERVICE else OTHER_SERVICE


def _other_account(principal: str) -> str | None:
    return OTHER_ACCOUNT if principal != OTHER_ACCOUNT else None


def _condition_changes(statement: _Statement) -> Iterator[_Change]:
    """The condition dropped; each of its values swapped for a near other (another source ARN or account, a
    boolean the other way)."""
    condition = statement.body.get("Condition")
    if condition is None:
        return
    rest = {k: v for k, v in statement.body.items() if k != "Condition"}
    yield _Change((), _replaced(statement.policy, statement.where, rest), f"{statement.label}-Condition",
                  f"{statement.label} without its Condition")  # fmt: skip
    if not isinstance(condition, dict):
        return
    for operator, tests in condition.items():
        for key, value in tests.items() if isinstance(tests, dict) else ():
            first = value[0] if isinstance(value, list) and value else value
            other = _other_condition_value(first)
            if other is None:
                continue
            changed = other if not isinstance(value, list) else [other, *value[1:]]
            new = {**condition, operator: {**tests, key: changed}}
            yield statement.change("Condition", new, f"Condition.{key}={other}", f"Condition {key} {other}")


def _other_condition_value(value: Any) -> str | None:
    """A condition value a learner gets wrong: another resource's ARN, another account, a boolean flipped."""
    if not isinstance(value, str):
        return None
    if value in ("true", "false"):
        return "false" if value == "true" else "true"
    if re.fullmatch(r"\d{12}", value):
        return "111122223333" if value != "111122223333" else "444455556666"
    if _ARN.fullmatch(value) and not value.endswith("*"):
        return f"{value}-other"
    return None


@cache
def _operations(service: str) -> tuple[str, ...]:
    """The operations botocore's model lists for an IAM action prefix (`dynamodb`), () when it has none."""
    try:
        return tuple(botocore.session.get_session().get_service_model(service).operation_names)
    except UnknownServiceError:
        return ()


def _sibling_action(service: str, actions: Sequence[str]) -> str | None:
    """One more action of the service, a read the grant does not cover yet (`dynamodb:GetItem` beside the
    writes): the least-privilege slip a learner makes. None when the service is unknown or all is covered."""
    granted = [str(a).lower() for a in actions]
    for operation in sorted(_operations(service), key=lambda o: (not o.startswith("Get"), o)):
        action = f"{service}:{operation}"
        if not any(fnmatch.fnmatchcase(action.lower(), pattern) for pattern in granted):
            return action
    return None


def _other_numbers(path: tuple[str | int, ...], value: int) -> list[int]:
    """Nearby wrong numbers by what the number means: ports a learner mixes up (80 and 8080); a count or a bound
    one more and twice as many (`maxReceiveCount` 5 -> 6, 10); else one more (a port range one wider)."""
    name = str(path[-1]) if path else ""
    if "Port" in name and not name.startswith("To"):
        return [8080 if value != 8080 else 80]
    if COUNTING.search(name):
        return [n for n in dict.fromkeys((value + 1, value * 2)) if n != value]
    return [value + 1]


def _other_network(network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> str:
    """The next block of the same size (10.0.1.0/24 -> 10.0.2.0/24); for 0.0.0.0/0 or the last block, one bit
    smaller (0.0.0.0/1)."""
    following = network.network_address + network.num_addresses if network.prefixlen > 0 else None
    if following is not None and int(following) < 2**network.max_prefixlen:
        return str(ipaddress.ip_network(f"{following}/{network.prefixlen}"))
    return str(next(network.subnets(prefixlen_diff=1)))


def _network(value: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(value, strict=True)
    except ValueError:
        return None


def _document(value: str) -> dict[str, Any] | None:
    """The JSON object a string holds, or None."""
    if not value.lstrip().startswith("{"):
        return None
    try:
        document = json.loads(value)
    except ValueError:
        return None
    return document if isinstance(document, dict) else None


def _replaced(value: Any, path: tuple[str | int, ...], new: Any) -> Any:
    """A deep copy of `value` with the item at `path` replaced by `new` (the whole value when `path` is empty)."""
    if not path:
        return copy.deepcopy(new)
    copied = copy.deepcopy(value)
    holder = copied
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = copy.deepcopy(new)
    return copied


def strings(value: Any) -> Iterator[str]:
    """Every string leaf of a call's parameters or response, nested ones included."""
    return (leaf for leaf in leaves(value) if isinstance(leaf, str))


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "double"
    if isinstance(value, dict):
        return "structure"
    if isinstance(value, list):
        return "list"
    return "string"


def _name(path: tuple[str | int, ...]) -> str:
    """`IpPermissions[0].FromPort`; a trailing `.Value` wrapper (EC2's attribute values) left off."""
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    return text.removesuffix(".Value") or "value"


def _is_id(value: str) -> bool:
    return bool(ID.fullmatch(value)) or value.startswith("arn:")


def _noun(operation: str) -> str:
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", operation).split()
    return " ".join(words[1:]).lower() if len(words) > 1 else operation


def _words(key: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key).lower()
