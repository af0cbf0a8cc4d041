"""Every CloudFormation resource type, from one source: the resource provider schemas cfn-lint ships.

For each type: whether it exists (with a did-you-mean), its `primaryIdentifier` (what an event's id is) and the
API calls that create it (`handlers.create.permissions`). Spec validation, the recorder and the scaffold read
types from here. Loaded lazily and cached: the index (one small JSON file) on first use, a type's schema when
that type is asked about, never all ~1,850 schemas at once.

The data files are cfn-lint's, read directly (cfn-lint has no public API for them): `data/schemas/providers/
<region>.json` maps each type to a hash, `data/schemas/resources/<hash>.json` is its schema. The layout is
pinned by the dependency's range in pyproject.toml and by tests/core/test_cfn_types.py, which fails if it moves.
"""

from __future__ import annotations

import difflib
import importlib.util
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

INDEX_REGION = "us-east-1"  # the region with the most types; others are read only when a type is not here
CREATING_VERBS = ("Create", "Put", "Allocate", "Run", "Register", "Add", "Import", "Request", "Subscribe")
GENERIC_NOUNS = frozenset({"tags", "tagstoresource", "grant", "servicelinkedrole", "servicelinkedchannel"})
"""Nouns of calls a create handler makes on the side of any resource (tagging it, granting a key to it)."""
_LINK = re.compile(r"[a-z0-9](To|For|From|With|On)[A-Z]")
"""A word that relates the call's object to another resource: `AddRoleToDBInstance` makes a role association."""


class SchemasMissing(RuntimeError):
    """cfn-lint's schema files are not where this module expects them (not installed, or the layout moved)."""


@dataclass(frozen=True)
class TypeInfo:
    """What stepeval uses of one type's schema."""

    type: str
    primary_identifier: tuple[str, ...]
    """Property names, e.g. ("QueueUrl",); several for a compound id ("ApiId", "RouteId"), joined with "|"."""
    create_permissions: frozenset[str]
    """IAM actions the create handler needs, lower-cased ("sqs:createqueue")."""
    creating_calls: tuple[str, ...] = ()
    """Of those, the ones that make the resource itself, as written ("sqs:CreateQueue"; empty for a service whose
    schemas list HTTP verbs)."""


@cache
def schema_dir() -> Path:
    """cfn-lint's `data/schemas` directory, found without importing cfn-lint (importing it is slow)."""
    spec = importlib.util.find_spec("cfnlint")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        candidate = Path(location) / "data" / "schemas"
        if (candidate / "providers" / f"{INDEX_REGION}.json").is_file() and (candidate / "resources").is_dir():
            return candidate
    raise SchemasMissing(
        "cfn-lint's resource schemas were not found (expected cfnlint/data/schemas/providers/us-east-1.json); "
        "install the cfn-lint version pyproject.toml names"
    )


@cache
def _index(region: str = INDEX_REGION) -> dict[str, str]:
    """type -> schema file hash, for one region."""
    path = schema_dir() / "providers" / f"{region}.json"
    return {k: v for k, v in json.loads(path.read_text(encoding="utf-8")).items() if k.startswith("AWS::")}


@cache
def _all_regions() -> dict[str, str]:
    """type -> schema file hash over every region cfn-lint knows (read only when a type is missing in us-east-1)."""
    merged: dict[str, str] = {}
    for path in sorted((schema_dir() / "providers").glob("*-*-*.json")):
        merged.update({k: v for k, v in _index(path.stem).items() if k not in merged})
    return merged


def _hash_of(resource_type: str) -> str | None:
    return _index().get(resource_type) or _all_regions().get(resource_type)


def exists(resource_type: str) -> bool:
    """Whether `resource_type` is a CloudFormation resource type (in any region)."""
    return _hash_of(resource_type) is not None


def suggest(resource_type: str) -> str | None:
    """The closest existing type name (case-insensitive), for a did-you-mean; None if nothing is close."""
    by_lower = {t.lower(): t for t in _index()}
    if resource_type.lower() in by_lower:
        return by_lower[resource_type.lower()]
    close = difflib.get_close_matches(resource_type.lower(), list(by_lower), n=1, cutoff=0.75)
    return by_lower[close[0]] if close else None


@cache
def info(resource_type: str) -> TypeInfo | None:
    """The type's primary identifier and create permissions; None for a type that does not exist."""
    digest = _hash_of(resource_type)
    if digest is None:
        return None
    schema = json.loads((schema_dir() / "resources" / f"{digest}.json").read_text(encoding="utf-8"))
    identifier = tuple(p.removeprefix("/properties/") for p in schema.get("primaryIdentifier", []))
    permissions = schema.get("handlers", {}).get("create", {}).get("permissions", [])
    return TypeInfo(
        resource_type, identifier, frozenset(p.lower() for p in permissions), _creating(resource_type, permissions)
    )


def _creating(resource_type: str, permissions: list[str]) -> tuple[str, ...]:
    """The create permissions that make the resource itself, the likeliest first.

    A creating call starts with a creating verb and its noun names the type: the type's name exactly
    (`rds:CreateDBInstance`) before a qualified one (`cloudwatch:PutMetricAlarm` for Alarm), Create before the other
    verbs. A noun that relates the type to something else (`rds:AddRoleToDBInstance`, `...ForObjectLambda`) makes
    that other thing. A type no noun names (`AWS::EC2::EIP`) takes the one creating call of its own service the
    permissions list, if there is exactly one beside the generic ones (tags, grants, service-linked roles).
    """
    _, namespace, name = resource_type.split("::")
    ranked = []
    for permission in dict.fromkeys(permissions):
        prefix, _, operation = permission.partition(":")
        operation = operation[:1].upper() + operation[1:]  # a few schemas write `createNotificationRule`
        noun = _noun(operation)
        closeness = _closeness(noun, name) if noun is not None else 0
        if noun is None or (closeness < 2 and _LINK.search(operation)):  # SiteToSiteVpnAttachment is its name
            continue
        verb = next(v for v in CREATING_VERBS if operation.startswith(v))
        own = _squash(prefix) == _squash(namespace)
        ranked.append((-closeness, CREATING_VERBS.index(verb), not own, permission, noun))
    ranked.sort(key=lambda r: r[:3])
    named = tuple(r[3] for r in ranked if r[0] < 0)
    if named:
        return named
    own = [r[3] for r in ranked if not r[2] and r[4] not in GENERIC_NOUNS]
    return tuple(own) if len(own) == 1 else ()


def types_in(namespaces: set[str]) -> list[str]:
    """The types whose service part (`AWS::<Service>::X`), compared without case or punctuation, is in `namespaces`."""
    wanted = {_squash(n) for n in namespaces}
    return [t for t in _index() if _squash(t.split("::")[1]) in wanted]


@cache
def created_by(namespaces: frozenset[str], iam_prefixes: frozenset[str], operation: str) -> TypeInfo | None:
    """The type an API operation creates, from the schemas alone, or None (a read, a tag, an attach...).

    `namespaces`: names the service goes by (botocore's service name, endpoint prefix, service id);
    `iam_prefixes`: its IAM action prefixes. The operation must start with a creating verb and its noun must name
    the type (`CreateQueue` -> Queue, `PutMetricAlarm` -> Alarm, `RunInstances` -> Instance); among such types,
    one whose create permissions list the operation wins, else (services whose schemas list HTTP verbs, such as
    API Gateway's `apigateway:POST`) a type the noun names exactly. A noun relating two things
    (`AddRoleToDBInstance`) names neither.
    """
    noun = _noun(operation)
    if noun is None:
        return None
    actions = {f"{prefix}:{operation}".lower() for prefix in iam_prefixes}
    ranked = []
    for resource_type in types_in(set(namespaces)):
        closeness = _closeness(noun, resource_type.split("::")[2])
        if closeness == 2 or (closeness and not _LINK.search(operation)):
            type_info = info(resource_type)
            if type_info is not None and type_info.primary_identifier:
                listed = bool(actions & type_info.create_permissions)
                if listed or closeness == 2:
                    ranked.append((listed, closeness, resource_type, type_info))
    if not ranked:
        return None
    return max(ranked, key=lambda r: r[:3])[3]


def _noun(operation: str) -> str | None:
    """`CreateQueue` -> "queue"; None when the operation does not start with a creating verb."""
    for verb in CREATING_VERBS:
        if operation.startswith(verb) and (len(operation) == len(verb) or operation[len(verb)].isupper()):
            return _squash(operation[len(verb) :]) or None
    return None


def _closeness(noun: str, resource_name: str) -> int:
    """2: the noun is the type's name (`Instances` for Instance); 1: one ends with the other; 0: unrelated."""
    name = _squash(resource_name)
    if noun in (name, f"{name}s", f"{name}es"):
        return 2
    return 1 if noun.endswith(name) or name.endswith(noun) else 0


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())
