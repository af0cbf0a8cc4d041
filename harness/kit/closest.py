"""Which candidate a learner most plausibly meant for an output none fits, and which of its misses to name.

When no candidate satisfies an output, the step explains the miss with one of them. The learner's own attempt is
the one to explain, not a decoy (an older resource, a scratch one): so the candidate tied to the step's inputs and
other outputs comes first (it refers to them, or they to it), then one that is not another output's better fit
(a candidate that misses fewer of another unfilled output's requirements was most likely meant for that one; missing
as many, one that meets more of the other's first-written requirements: two subnets whose zones were swapped are
each the one whose CIDR they have, and what is wrong is the zone), then
the one missing the fewest requirements, then
the one whose misses come nearest (a set of rules sharing the most with the expected one), then the most recently
created (its creation time where the description has one, else the later event); never one that merely came first.
A requirement every candidate misses alike (opaque: it cannot tell them apart) decides nothing, and is named last.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from harness.kit.kinds import Resource, short_name
from harness.kit.outputs import Candidate, Verdict
from harness.kit.require import Missing, Outcome

CREATED = (
    "CreationDate",
    "CreatedDate",
    "CreateDate",
    "CreationTime",
    "CreatedTime",
    "CreateTime",
    "CreatedTimestamp",
    "CreationTimestamp",
    "CreatedAt",
    "createdAt",
    "createdDate",
    "creationTime",
    "LaunchTime",
    "InstanceCreateTime",
)
"""The keys AWS's describes give a resource's creation time under (a datetime, ISO text or epoch seconds)."""


@dataclass(frozen=True)
class Judged:
    """A candidate with its verdict, as the ranking sees it."""

    candidate: Candidate
    verdict: Verdict | None
    position: int  # in preference order: resolved handle first, then events in order


@dataclass(frozen=True)
class Anchors:
    """What ties a candidate to the learner's work: the step's inputs (a tie either way), the resources of the
    outputs its requirements read (the candidate should name them), and of the outputs whose requirements read
    it (they should name the candidate)."""

    inputs: Sequence[Candidate] = ()
    read: Sequence[Candidate] = ()
    readers: Sequence[Candidate] = ()

    def ties(self, candidate: Candidate) -> int:
        """How many of them the candidate is tied to."""
        names = identifiers(candidate)
        count = sum(tied(candidate, anchor) for anchor in self.inputs if anchor[0] != candidate[0])
        count += sum(_mentions(candidate[1], identifiers(a)) for a in self.read if a[0] != candidate[0])
        return count + sum(_mentions(a[1], names) for a in self.readers if a[0] != candidate[0])


def rank(judged: Sequence[Judged], anchors: Anchors, claimed: Set[str] = frozenset()) -> list[Judged]:
    """`judged` from the most to the least plausibly meant (see the module's docstring); `claimed` holds the ids
    of candidates another unfilled output fits better."""
    opaque = opaque_checks(judged)
    timed = all(created(j.candidate[1]) is not None for j in judged)

    def key(entry: Judged) -> tuple[Any, ...]:
        ties = anchors.ties(entry.candidate)
        wrong = telling(entry.verdict, opaque) if entry.verdict else 10**6
        near = closeness(entry.verdict, opaque) if entry.verdict else 0.0
        when = created(entry.candidate[1]) if timed else None
        return (-ties, entry.candidate[0] in claimed, wrong, -near, -(when or 0.0), -entry.position)

    return sorted(judged, key=key)


def opaque_checks(judged: Sequence[Judged]) -> set[str]:
    """The checks every candidate misses with the same value read: they tell no candidate from another."""
    verdicts = [j.verdict for j in judged if j.verdict is not None]
    if len(verdicts) < 2:
        return set()
    seen: dict[str, set[str]] = {}
    for verdict in verdicts:
        misses = {o.requirement.check: repr(o.actual) for o in verdict.wrong}
        for check in {o.requirement.check for o in verdict.outcomes}:
            seen.setdefault(check, set()).add(misses.get(check, "\0fits"))
    return {check for check, values in seen.items() if len(values) == 1 and "\0fits" not in values}


def definite(verdict: Verdict) -> int:
    """How many requirements the candidate misses on what it holds, not for want of another output's resource."""
    return sum(not isinstance(o.actual, Missing) for o in verdict.wrong)


def fitting_prefix(verdict: Verdict) -> int:
    """How many of the output's requirements, in the order its author wrote them, the candidate meets before its
    first miss on what it holds: authors write first what names a resource (its CIDR, its name), then its settings."""
    wrong = [o for o in verdict.wrong if not isinstance(o.actual, Missing)]
    return next((i for i, o in enumerate(verdict.outcomes) if any(o is w for w in wrong)), len(verdict.outcomes))


def fit_for(verdict: Verdict) -> tuple[int, int]:
    """How badly a candidate fits an output, to compare outputs it might be meant for (less is better): its definite
    misses, then the fewer of the first-written requirements it meets."""
    return definite(verdict), -fitting_prefix(verdict)


def telling(verdict: Verdict, opaque: set[str]) -> int:
    """How many of the candidate's wrong misses tell it from the others."""
    return sum(o.requirement.check not in opaque for o in verdict.wrong)


def closeness(verdict: Verdict, opaque: set[str]) -> float:
    """How near the candidate's telling misses come to what they expect: for a set of things (rules, routes,
    actions), the share the found and the expected have in common; nothing for a single value."""
    return sum(_overlap(o.actual, o.requirement.expected) for o in verdict.wrong if o.requirement.check not in opaque)


def _overlap(actual: Any, expected: Any) -> float:
    collections = (list, tuple, set, frozenset)
    if not isinstance(actual, collections) or not isinstance(expected, collections):
        return 0.0
    found, wanted = {str(item) for item in actual}, {str(item) for item in expected}
    union = found | wanted
    return len(found & wanted) / len(union) if union else 0.0


def named_miss(verdict: Verdict, opaque: set[str]) -> Outcome:
    """The miss to name: the first that tells the candidate from the others, else the first."""
    return next((o for o in verdict.wrong if o.requirement.check not in opaque), verdict.wrong[0])


def created(resource: Resource) -> float | None:
    """The resource's creation time (epoch seconds) where its description has one."""
    for key in CREATED:
        value = dict.get(resource, key) if isinstance(resource, dict) else None
        when = _epoch(value)
        if when is not None:
            return when
    return None


def _epoch(value: Any) -> float | None:
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) / (1000 if value > 10**11 else 1)  # milliseconds (DynamoDB streams, Logs) or seconds
    if isinstance(value, str) and value:
        try:
            return _epoch(float(value))
        except ValueError:
            pass
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def tied(candidate: Candidate, anchor: Candidate) -> bool:
    """Whether the candidate refers to the anchor (an input, another output's resource) or the anchor to it."""
    return _mentions(candidate[1], identifiers(anchor)) or _mentions(anchor[1], identifiers(candidate))


def identifiers(candidate: Candidate) -> set[str]:
    """What names the resource: its id, and the ARNs and URLs in its description that end with its id's last part
    (a queue's `QueueArn` beside its URL; never a reference to another resource, such as its `VpcId`)."""
    rid, resource = candidate
    names = {rid}
    last = short_name(rid)
    if isinstance(resource, dict) and len(last) >= 3:
        for value in resource.values():
            if (
                isinstance(value, str)
                and value.startswith(("arn:", "https://"))
                and re.search(rf"[:/]{re.escape(last)}$", value)
            ):
                names.add(value)
    return {name for name in names if name}


def _mentions(resource: Any, names: set[str]) -> bool:
    """Whether a string in the resource is one of `names`, or holds a long one (an ARN inside a JSON document)."""
    long = [name for name in names if len(name) >= 12]
    return any(text in names or any(name in text for name in long) for text in _strings(resource))


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if depth > 12:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key in list(value):
            yield from _strings(value.get(key), depth + 1)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _strings(item, depth + 1)
