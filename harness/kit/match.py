"""Choose a step's resources for its outputs together, so that neither order nor chance decides.

A step may ask for two security groups, one admitting the other; several candidates may pass one output's own
requirements, and only some choices let the other output's requirements hold too. `assign` searches the
assignments (backtracking, outputs in declaration order, candidates in the order given) for one under which as
many outputs as possible have every requirement hold, cross-references included; each candidate fills at most
one output of its kind. An output is judged with the candidates tried for the outputs it refers to, near misses
included: a resource that breaks one requirement still stands for its output, so the outputs referring to it are
not failed with it, and a decoy that satisfies one cross-reference cannot outscore the learner's own resource.
When every output fits, the first such assignment in that order is kept (of two equally right resources, the
one created first becomes the first output); when some output misses, of equally good assignments the one
holding the latest candidates (compared output by output in declaration order) is kept: the learner's last
attempt, not an older resource. Either way the answer is the same on every run for the same candidates (the step
gives them in event order: never by id, which is random).
`match` is the same search for outputs that do not refer to each other, over candidates in the order of their
descriptions.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Generic, TypeVar

C = TypeVar("C")

Requirement = Callable[[C], Sequence[str]]
"""A per-output predicate: the descriptions of the requirements a candidate misses (empty: it fits)."""

NO_CANDIDATE = "no candidate of this type"

SEARCH_BUDGET = 200_000
"""Assignments tried at most; beyond it the best found so far stands (never reached by a lab's few outputs)."""


class Fit(Enum):
    """How a candidate meets one output's requirements, given what the other outputs are assigned."""

    FITS = "fits"
    PENDING = "pending"  # nothing is wrong, but AWS has not finished with the resource: not yet
    MISSES = "misses"
    UNDECIDED = "undecided"  # a requirement refers to an output not assigned yet


Judge = Callable[[str, C, Mapping[str, C | None]], Fit]
"""(output, candidate, the assignment so far) -> how the candidate fits the output."""


def assign(
    outputs: Sequence[str],
    options: Mapping[str, Sequence[C]],
    judge: Judge[C],
    key: Callable[[str, C], Hashable],
) -> dict[str, C | None]:
    """The assignment (output -> candidate, or None) under which the most outputs fit or are pending (and of
    those, the most fit), every requirement judged with the other outputs' candidates, misses included; the first
    such in declaration and option order when all fit, else the one holding the latest options. An output whose
    candidate misses is None in the answer.

    `options[output]` are its candidates in preference order; two outputs never share a candidate whose `key`
    is equal (e.g. the same resource). An output judged UNDECIDED is judged again once the outputs it refers to
    are assigned; an unassigned one (None) is what a requirement referring to it sees. At most SEARCH_BUDGET
    candidates are tried: a branch that cannot reach the best score so far is cut.
    """
    order = list(outputs)
    reachable = [sum(1 for later in order[i:] if options.get(later)) for i in range(len(order) + 1)]
    best: dict[str, C | None] = {name: None for name in order}
    best_score: tuple[int, int] = (-1, -1)  # (outputs fitting or pending, of them fitting rather than pending)
    best_latest: tuple[int, ...] = ()
    tried, complete = 0, (len(order), len(order))
    trial: dict[str, C | None] = {}
    latest: list[int] = []  # each output's candidate's place in its options, declaration order (-1: none)

    def standing(upto: int) -> tuple[int, int]:
        """(outputs assigned so far that fit, are pending or wait on a later output; of them, those that fit)."""
        held = [(name, trial[name]) for name in order[:upto]]
        fits = [judge(name, candidate, trial) for name, candidate in held if candidate is not None]
        return sum(f is not Fit.MISSES for f in fits), fits.count(Fit.FITS)

    def search(index: int, taken: frozenset[Hashable]) -> None:
        nonlocal best, best_score, best_latest, tried
        good, fitting = standing(index)
        if (good + reachable[index], fitting + reachable[index]) < best_score or tried >= SEARCH_BUDGET:
            return
        if index == len(order):
            if (good, fitting, tuple(latest)) > (*best_score, best_latest):
                best = {name: _kept(name, trial[name], trial, judge) for name in order}
                best_score, best_latest = (good, fitting), tuple(latest)
            return
        name = order[index]
        for place, candidate in enumerate(options.get(name, ())):
            tried += 1
            if key(name, candidate) in taken:
                continue
            trial[name] = candidate
            latest.append(place)
            search(index + 1, taken | {key(name, candidate)})
            latest.pop()
            if best_score == complete:
                return
        trial[name] = None
        latest.append(-1)
        search(index + 1, taken)
        latest.pop()
        del trial[name]

    search(0, frozenset())
    return best


def _kept(name: str, candidate: C | None, trial: Mapping[str, C | None], judge: Judge[C]) -> C | None:
    """`candidate` if it fits `name` (or is pending) under the whole assignment `trial`; None for a near miss."""
    if candidate is None or judge(name, candidate, trial) is Fit.MISSES:
        return None
    return candidate


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

    Among the best assignments, the one chosen gives each output in the order given the first fitting candidate
    (by `describe`, then by position) that still allows the most outputs a candidate: ordering by description
    makes the result independent of candidate order whenever descriptions are distinct.
    """
    if len(set(outputs)) != len(outputs):
        raise ValueError(f"duplicate output names in {list(outputs)}")
    if set(requirements) != set(outputs):
        raise ValueError(f"requirements are for {sorted(requirements)}, but the outputs are {sorted(outputs)}")
    pool = [candidates[i] for i in sorted(range(len(candidates)), key=lambda i: (describe(candidates[i]), i))]
    misses = {o: [_misses(o, requirements[o](c)) for c in pool] for o in outputs}
    fitting = {o: [j for j, m in enumerate(misses[o]) if not m] for o in outputs}
    chosen = assign(outputs, fitting, lambda *_: Fit.FITS, lambda _, j: j)
    holder = {j: o for o, j in chosen.items() if j is not None}
    assigned = {o: pool[j] for o, j in chosen.items() if j is not None}
    unmatched = {o: _reasons(misses[o], pool, holder, describe) for o in outputs if chosen[o] is None}
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
