"""Choose a step's resources for its outputs together, so that neither order nor chance decides.

A step may ask for two security groups, one admitting the other; several candidates may pass one output's own
requirements, and only some choices let the other output's requirements hold too. `assign` searches the
assignments (backtracking, outputs in declaration order, candidates in the order given) for one under which every
output has every requirement hold, cross-references included; each candidate fills at most one output of its
kind. Of equally good ones it keeps the first in that order (of two equally right resources, the one created
first becomes the first output). When none fits every output, it keeps the one breaking the fewest requirements
in all, each output holding a candidate even where it misses, so that the outputs referring to a near miss are
judged with it rather than failed with it, and a decoy that satisfies one cross-reference cannot outscore the
learner's own resource; of those, the one holding the latest candidates (the learner's last attempt). Either way
the answer is the same on every run for the same candidates (the step gives them in event order: never by id,
which is random).
`match` is the first search for outputs that do not refer to each other, over candidates in the order of their
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
"""Candidates tried at most per pass of `assign`; beyond it the best found so far stands (never reached by a lab's
few outputs)."""


class Fit(Enum):
    """How a candidate meets one output's requirements, given what the other outputs are assigned."""

    FITS = "fits"
    PENDING = "pending"  # nothing is wrong, but AWS has not finished with the resource: not yet
    MISSES = "misses"
    UNDECIDED = "undecided"  # a requirement refers to an output not assigned yet


Judge = Callable[[str, C, Mapping[str, C | None]], Fit]
"""(output, candidate, the assignment so far) -> how the candidate fits the output."""

Weigh = Callable[[str, C | None, Mapping[str, C | None]], int]
"""(output, a candidate that misses it or None for none, the assignment) -> how many requirements that breaks."""


def assign(
    outputs: Sequence[str],
    options: Mapping[str, Sequence[C]],
    judge: Judge[C],
    key: Callable[[str, C], Hashable],
    weigh: Weigh[C] | None = None,
) -> dict[str, C | None]:
    """The assignment (output -> candidate, or None) under which the most outputs fit or are pending (and of
    those, the most fit), every requirement judged with the other outputs' candidates: the first such in
    declaration and option order when every output with a candidate fits, or without `weigh`. Else the one
    breaking the fewest requirements as `weigh` counts them, near misses held (a requirement referring to an output
    is judged with its near miss), and of those the one holding the latest options (output by output); an output
    whose candidate misses is None in the answer.

    `options[output]` are its candidates in preference order; two outputs never share a candidate whose `key`
    is equal (e.g. the same resource). An output judged UNDECIDED is judged again once the outputs it refers to
    are assigned; an unassigned one (None) is what a requirement referring to it sees. The first pass holds only
    candidates that fit (cut at the first miss); the second, near misses too, only when the first leaves an
    output with candidates unfilled and `weigh` is given. Each pass tries at most SEARCH_BUDGET candidates, and
    cuts a branch that cannot reach the best score so far.
    """
    order = list(outputs)
    strict = _Search(order, options, judge, key, None)
    strict.run()
    if weigh is None or strict.score[1] == strict.reachable[0]:  # every output with a candidate fits or waits
        return strict.best
    loose = _Search(order, options, judge, key, weigh)
    loose.run()
    return loose.best


class _Search(Generic[C]):
    """One backtracking pass of `assign`. Without `weigh`, every output held must fit or be pending, so a branch is
    cut at its first miss (the pass that settles a step where everything fits). With it, an output may hold a
    candidate that misses (the outputs referring to it are judged with it) or none, each weighed by the
    requirements it breaks."""

    def __init__(
        self,
        order: list[str],
        options: Mapping[str, Sequence[C]],
        judge: Judge[C],
        key: Callable[[str, C], Hashable],
        weigh: Weigh[C] | None,
    ) -> None:
        self.order, self.options, self.judge, self.key, self.weigh = order, options, judge, key, weigh
        self.reachable = [sum(1 for later in order[i:] if options.get(later)) for i in range(len(order) + 1)]
        self.best: dict[str, C | None] = {name: None for name in order}
        self.score = (-1, -1, -1)  # (requirements broken, negated; outputs fitting or pending; of them fitting)
        self.latest: tuple[int, ...] = ()  # of the best: each output's place in its options (-1: none)
        self.tried = 0
        self.trial: dict[str, C | None] = {}
        self.places: list[int] = []

    def run(self) -> None:
        """Search from the first output; `best` is the answer."""
        self.score = (-(10**9), -1, -1) if self.weigh else (0, -1, -1)
        self._search(0, frozenset(), (0, 0, 0), ())

    def _standing(
        self, settled: tuple[int, int, int], waiting: tuple[str, ...]
    ) -> tuple[tuple[int, int, int], tuple[str, ...]] | None:
        """`settled` (the score of the outputs whose fit is final) with the waiting outputs judged now, and those
        still waiting (a verdict is final once every output it reads is held); None: a miss, without `weigh`."""
        broken, good, fitting = settled
        still = []
        for name in waiting:
            candidate = self.trial[name]
            assert candidate is not None
            fit = self.judge(name, candidate, self.trial)
            if fit is Fit.UNDECIDED:
                still.append(name)
            elif fit is Fit.MISSES:
                if self.weigh is None:
                    return None
                broken -= self.weigh(name, candidate, self.trial)
            else:
                good, fitting = good + 1, fitting + (fit is Fit.FITS)
        return (broken, good, fitting), tuple(still)

    def _search(
        self, index: int, taken: frozenset[Hashable], settled: tuple[int, int, int], waiting: tuple[str, ...]
    ) -> None:
        standing = self._standing(settled, waiting)
        if standing is None or self.tried >= SEARCH_BUDGET:
            return
        (broken, good, fitting), waiting = standing
        hope = len(waiting) + self.reachable[index]
        bound = (broken, good + hope, fitting + hope)
        if self.weigh is not None and broken < self.score[0]:
            return  # weighing, the fewest broken requirements decide, then the latest options
        if self.weigh is None and bound <= self.score:
            return  # without `weigh`, the most outputs fitting decide, and the first of equals stands
        if index == len(self.order):
            self._leaf((broken, good, fitting))
            return
        name = self.order[index]
        for place, candidate in enumerate(self.options.get(name, ())):
            self.tried += 1
            if self.key(name, candidate) in taken:
                continue
            self.trial[name] = candidate
            self.places.append(place)
            self._search(index + 1, taken | {self.key(name, candidate)}, (broken, good, fitting), (*waiting, name))
            self.places.pop()
            if self.score == (0, len(self.order), len(self.order)):
                return
        self.trial[name] = None
        self.places.append(-1)
        empty = self.weigh(name, None, self.trial) if self.weigh and self.options.get(name) else 0
        self._search(index + 1, taken, (broken - empty, good, fitting), waiting)
        self.places.pop()
        del self.trial[name]

    def _leaf(self, score: tuple[int, int, int]) -> None:
        """A whole assignment: the best so far if it scores higher; weighing, if it breaks fewer requirements, or
        as few holding later options."""
        places = tuple(self.places)
        better = (score[0], places) > (self.score[0], self.latest) if self.weigh else score > self.score
        if better:
            self.best = {name: _kept(name, self.trial[name], self.trial, self.judge) for name in self.order}
            self.score, self.latest = score, places


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
