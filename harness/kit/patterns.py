"""Event patterns and filter policies as EventBridge and SNS read them: the values of a field are alternatives,
so their order carries no meaning (except inside a `numeric` comparison, which is a sequence)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from harness.kit.require import Requirement, require

ORDERED_OPERATORS = frozenset({"numeric"})


def canonical(pattern: Any, key: str | None = None) -> Any:
    """`pattern` with every list of alternatives in one order, so equal meanings compare equal."""
    if isinstance(pattern, dict):
        return {k: canonical(v, k) for k, v in sorted(pattern.items())}
    if isinstance(pattern, list):
        items = [canonical(item) for item in pattern]
        return items if key in ORDERED_OPERATORS else sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
    return pattern


def parsed(document: str | None) -> Any:
    """A pattern or policy as AWS stores it (JSON text), canonical; None when there is none."""
    return canonical(json.loads(document)) if document else None


def exactly(check: str, pattern: dict[str, Any], document: Callable[[Any], str | None]) -> Requirement:
    """The pattern or policy `document(resource)` holds (JSON text) is exactly `pattern`, alternatives in any
    order."""
    wanted = canonical(pattern)
    return require(
        check, pattern, lambda resource: parsed(document(resource)), compare=lambda actual, _: actual == wanted
    )
