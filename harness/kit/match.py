"""Assign candidate resources to a step's several outputs of one type, so that order never matters.

A step may ask for, say, two buckets with different requirements. Checking candidates greedily in listing
order can fail a learner whose buckets happen to be listed the "wrong" way round, or let one bucket satisfy
two outputs. Here the assignment is a maximum bipartite matching, chosen canonically, and every output left
unmatched gets one sentence per candidate saying which requirement it missed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

C = TypeVar("C")

Requirement = Callable[[C], Sequence[str]]
"""A per-output predicate: the descriptions of the requirements a candidate misses (empty: it fits)."""

NO_CANDIDATE = "no candidate of this type"


@dataclass(frozen=True)
class MatchResult(Generic[C]):
    """`assigned` maps output -> candidate; `unmatched` maps output -> one sentence per candidate on why not."""

    assigned: dict[str, C]
    unmatched: dict[str, list[str]]

    @property
    def complete(self) -> bool:
        """Whether every output found its candidate."""
        return not self.unmatched


def missed(*checks: tuple[bool, str]) -> list[str]:
    """The descriptions of the failed checks, e.g. `missed((b.versioned, "versioning enabled"), ...)`."""
    return [description for ok, description in checks if not ok]


def match(
    outputs: Sequence[str],
    candidates: Sequence[C],
    requirements: Mapping[str, Requirement[C]],
    describe: Callable[[C], str] = str,
) -> MatchResult[C]:
    """Match candidates to outputs, each candidate filling at most one output, as many outputs as possible.

    Among the maximum matchings, the one chosen gives each output in spec order the first fitting
    candidate (by `describe`, then by input position) that still allows a maximum matching. Ordering by
    description makes the result independent of candidate order whenever descriptions are distinct, so give
    `describe` something unique such as the resource name.
    """
    if len(set(outputs)) != len(outputs):
        raise ValueError(f"duplicate output names in {list(outputs)}")
    if set(requirements) != set(outputs):
        raise ValueError(f"requirements are for {sorted(requirements)}, but the outputs are {sorted(outputs)}")
    ordered = sorted(range(len(candidates)), key=lambda i: (describe(candidates[i]), i))
    pool = [candidates[i] for i in ordered]
    misses = [[_misses(o, requirements[o](c)) for c in pool] for o in outputs]
    fits = [[j for j, m in enumerate(row) if not m] for row in misses]

    chosen: dict[int, int] = {}
    for i in range(len(outputs)):
        taken = set(chosen.values())
        best = _max_matching(fits[i:], taken)
        for j in fits[i]:
            if j not in taken and 1 + _max_matching(fits[i + 1 :], taken | {j}) == best:
                chosen[i] = j
                break

    holder = {j: outputs[i] for i, j in chosen.items()}
    assigned = {outputs[i]: pool[j] for i, j in sorted(chosen.items())}
    unmatched = {o: _reasons(misses[i], pool, holder, describe) for i, o in enumerate(outputs) if i not in chosen}
    return MatchResult(assigned, unmatched)


def _misses(output: str, result: object) -> list[str]:
    if isinstance(result, list | tuple) and all(isinstance(m, str) for m in result):
        return list(result)
    raise TypeError(f"the requirement for {output} must return a list of missed requirements, not {result!r}")


def _reasons(
    misses: list[list[str]], pool: Sequence[C], holder: dict[int, str], describe: Callable[[C], str]
) -> list[str]:
    if not pool:
        return [NO_CANDIDATE]
    return [
        f"{describe(c)} misses: {', '.join(m)}" if m else f"{describe(c)} fits, but is already matched to {holder[j]}"
        for j, (c, m) in enumerate(zip(pool, misses, strict=True))
    ]


def _max_matching(fits: Sequence[Sequence[int]], excluded: set[int]) -> int:
    """Size of a maximum matching of rows to columns (simple augmenting paths; sizes here are tiny)."""
    owner: dict[int, int] = {}

    def augment(row: int, visited: set[int]) -> bool:
        for col in fits[row]:
            if col in excluded or col in visited:
                continue
            visited.add(col)
            if col not in owner or augment(owner[col], visited):
                owner[col] = row
                return True
        return False

    return sum(augment(row, set()) for row in range(len(fits)))
