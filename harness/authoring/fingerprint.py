"""What a resource looks like, as the kit describes it: to tell a mutant that built the same thing as the solve.

Every `Kind` the kit defines (`kit.catalog.kinds`) knows how to describe its type by id; a fingerprint is
that description with the lazy attributes loaded and the clock (times, dates) left out.
Which resources a call touched is read by parsed identities (`mutants.Known`), never as substrings of it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from harness.kit import catalog
from harness.kit.kinds import Kind, LazyResource

Fingerprint = dict[str, str | None]
"""id -> the resource's normalized description (JSON), None when it cannot be described (gone, unknown type)."""
CLOCK_KEY = re.compile(r"(?:^|[a-z0-9])(?:Time|Date|Timestamp|At)$")


def fingerprint(session: Any, types: Mapping[str, str]) -> Fingerprint:
    """The description of each resource in `types` (id -> CloudFormation type) as the session sees it now."""
    known = catalog.kinds()
    prints: Fingerprint = {}
    for resource_id, resource_type in types.items():
        kind = known.get(resource_type)
        prints[resource_id] = _describe(session, kind, resource_id) if kind is not None else None
    return prints


def same(mutant: Fingerprint, solve: Fingerprint) -> bool:
    """True when every resource the mutant's print holds was described, and exactly as in the solve's."""
    return bool(mutant) and all(
        value is not None and solve.get(resource_id) == value for resource_id, value in mutant.items()
    )


def _describe(session: Any, kind: Kind, resource_id: str) -> str | None:
    try:
        resource = kind.fetch(session, resource_id)
        if isinstance(resource, LazyResource):
            resource = resource.complete()
    except (ClientError, BotoCoreError):  # not described, so not known to be the same
        return None
    return None if resource is None else json.dumps(_without_clock(resource), sort_keys=True, default=str)


def _without_clock(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _without_clock(v) for k, v in value.items() if not _is_clock(str(k), v)}
    if isinstance(value, list | tuple):
        return [_without_clock(v) for v in value]
    return value


def _is_clock(key: str, value: Any) -> bool:
    """A moment, not a setting: a parsed timestamp, or a key whose last word says so (`CreatedTimestamp`,
    `LastModifiedDate`, `registeredAt`), never one that merely contains such a word (`VisibilityTimeout`,
    `ReceiveMessageWaitTimeSeconds`)."""
    return isinstance(value, datetime) or CLOCK_KEY.search(key) is not None
