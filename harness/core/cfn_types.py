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
    """Of those, the ones that make the resource itself, as written, the likeliest first ("rds:CreateDBInstance"
    before "rds:AddRoleToDBInstance"; empty for a service whose schemas list HTTP verbs)."""


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
    creating = _creating_calls(permissions, resource_type.split("::")[2])
    return TypeInfo(resource_type, identifier, frozenset(p.lower() for p in permissions), creating)


def _creating_calls(permissions: list[str], name: str) -> tuple[str, ...]:
    """The create permissions that make the resource itself, the likeliest first: those whose noun is the type's
    name before those that only end with it (`rds:CreateDBInstance` before `rds:AddRoleToDBInstance`), a Create
    before the other verbs, then the schema's order. A type whose call names something else (`ec2:AllocateAddress`
    for an EIP, `sns:Subscribe` for a subscription) gets every call with a creating verb, in the schema's order.
    Tagging calls (`ec2:CreateTags`, `kinesis:AddTagsToStream`) make nothing."""
    making = [
        (permission, operation, verb)
        for permission in permissions
        if (verb := _verb(operation := permission.partition(":")[2])) and "tags" not in _squash(operation)
    ]
    ranked = sorted(
        (-closeness, CREATING_VERBS.index(verb), position, permission)
        for position, (permission, operation, verb) in enumerate(making)
        if (noun := _noun(operation)) and (closeness := _closeness(noun, name))
    )
    return tuple(r[-1] for r in ranked) or tuple(m[0] for m in making)


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
    API Gateway's `apigateway:POST`) a type the noun names exactly.
    """
    noun = _noun(operation)
    if noun is None:
        return None
    actions = {f"{prefix}:{operation}".lower() for prefix in iam_prefixes}
    ranked = []
    for resource_type in types_in(set(namespaces)):
        closeness = _closeness(noun, resource_type.split("::")[2])
        if closeness:
            type_info = info(resource_type)
            if type_info is not None and type_info.primary_identifier:
                listed = bool(actions & type_info.create_permissions)
                if listed or closeness == 2:
                    ranked.append((listed, closeness, resource_type, type_info))
    if not ranked:
        return None
    return max(ranked, key=lambda r: r[:3])[3]


def _verb(operation: str) -> str | None:
    """The creating verb an operation starts with (`CreateQueue` -> Create, `Subscribe` -> Subscribe), else None."""
    for verb in CREATING_VERBS:
        if operation.startswith(verb) and (len(operation) == len(verb) or operation[len(verb)].isupper()):
            return verb
    return None


def _noun(operation: str) -> str | None:
    """`CreateQueue` -> "queue"; None when the operation does not start with a creating verb or names nothing."""
    verb = _verb(operation)
    if verb is None:
        return None
    return _squash(operation[len(verb) :]) or None


def _closeness(noun: str, resource_name: str) -> int:
    """2: the noun is the type's name (`Instances` for Instance); 1: one ends with the other; 0: unrelated."""
    name = _squash(resource_name)
    if noun in (name, f"{name}s", f"{name}es"):
        return 2
    return 1 if noun.endswith(name) or name.endswith(noun) else 0


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())
