"""A Kind: a CloudFormation resource type, what to call it in a sentence, and how to describe one by id."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Resource = dict[str, Any]
"""A resource as the describe/get calls return it, plus whatever the Kind's fetch adds (e.g. VPC attributes)."""


class LazyResource(dict[str, Any]):
    """A described resource whose costlier attributes are fetched on first use (one call each, then kept).

    `vpc["EnableDnsHostnames"]` makes the DescribeVpcAttribute call only if some requirement reads it.
    """

    def __init__(self, described: Mapping[str, Any], loaders: Mapping[str, Callable[[], Any]]) -> None:
        super().__init__(described)
        self._loaders = dict(loaders)

    def __missing__(self, key: str) -> Any:
        if key not in self._loaders:
            raise KeyError(key)
        value = self[key] = self._loaders[key]()
        return value

    def get(self, key: str, default: Any = None) -> Any:
        """Like dict.get, loading a lazy attribute first (dict.get alone would not call __missing__)."""
        return self[key] if key in self or key in self._loaders else default

    def complete(self) -> dict[str, Any]:
        """Every attribute, the lazy ones loaded: the whole resource as a plain dict."""
        return {**{key: self[key] for key in self._loaders}, **self}


Fetch = Callable[[Any, str], Resource | None]
"""(session, id) -> the resource, None when the answer is empty; NotFound errors may be raised."""


@dataclass(frozen=True)
class Kind:
    """How the kit finds and names one type of resource."""

    type: str
    noun: str
    fetch: Fetch
    naming: str = "{noun} {id}"

    def describe(self, resource_id: str) -> str:
        """`VPC vpc-0abc`: how a sentence names one."""
        return self.naming.format(noun=self.noun, id=resource_id)


KINDS: dict[str, Kind] = {}
"""Every kit Kind by CloudFormation type, filled as the kit's service modules are imported (see `kit.catalog`)."""


def register(kind: Kind) -> Kind:
    """Index `kind` under its CloudFormation type and return it; one Kind per type."""
    held = KINDS.setdefault(kind.type, kind)
    if held is not kind:
        raise ValueError(f"{kind.type} already has a Kind ({held.noun})")
    return kind


def first(items: list[Resource]) -> Resource | None:
    """The one resource a describe-by-id call returned, or None (some services answer an unknown id with [])."""
    return items[0] if items else None


def id_of(resource_or_id: Resource | str | None, key: str) -> str | None:
    """An id given directly, or read from a described resource under `key` (None stays None)."""
    if resource_or_id is None or isinstance(resource_or_id, str):
        return resource_or_id
    return resource_or_id.get(key)
