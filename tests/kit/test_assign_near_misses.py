"""`assign` against brute force on outputs that refer to each other, weighing each output that misses or holds
nothing as one broken requirement: its answer scores the most outputs fitting over every assignment, near misses
held included; when all fit it is the first in order, else of equals the one holding the latest candidates; and
every output it keeps fits under the whole answer."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from hypothesis import given
from hypothesis import strategies as st

from harness.kit.match import Fit, assign

Table = dict[tuple[int, int, int | None], bool]
"""(output, its candidate, the candidate of the output it refers to or None) -> fits."""


@st.composite
def worlds(draw: st.DrawFn) -> tuple[int, int, dict[int, int], Table]:
    """Outputs 0..n-1 over candidates 0..m-1 (shared pool: one output each); some outputs refer to another."""
    n, m = draw(st.integers(1, 4)), draw(st.integers(0, 4))
    refers = {o: draw(st.sampled_from([t for t in range(n) if t != o])) for o in range(1, n) if draw(st.booleans())}
    table = {
        (o, c, r): draw(st.booleans())
        for o in range(n)
        for c in range(m)
        for r in ([None, *range(m)] if o in refers else [None])
    }
    return n, m, refers, table


def fits(o: int, c: int, holding: Mapping[int, int | None], refers: dict[int, int], table: Table) -> bool:
    return table[(o, c, holding.get(refers[o]) if o in refers else None)]


def score(choice: tuple[int | None, ...], refers: dict[int, int], table: Table) -> int:
    holding = dict(enumerate(choice))
    return sum(c is not None and fits(o, c, holding, refers, table) for o, c in enumerate(choice))


def every_choice(n: int, m: int) -> list[tuple[int | None, ...]]:
    choices = itertools.product([None, *range(m)], repeat=n)
    return [c for c in choices if len([x for x in c if x is not None]) == len({x for x in c if x is not None})]


@given(worlds())
def test_assign_holds_the_best_assignment_near_misses_included(world: tuple[int, int, dict[int, int], Table]) -> None:
    n, m, refers, table = world
    outputs = [str(o) for o in range(n)]

    def judge(name: str, candidate: int, trial: Mapping[str, int | None]) -> Fit:
        o = int(name)
        if o in refers and str(refers[o]) not in trial:
            return Fit.UNDECIDED
        holding = {int(k): v for k, v in trial.items()}
        return Fit.FITS if fits(o, candidate, holding, refers, table) else Fit.MISSES

    answer = assign(outputs, {o: list(range(m)) for o in outputs}, judge, lambda _, c: c, lambda *_: 1)
    kept = {int(o): c for o, c in answer.items() if c is not None}
    choices = every_choice(n, m)
    best = max(score(c, refers, table) for c in choices)

    assert len(kept) == best
    assert len(set(kept.values())) == len(kept)
    winners = [c for c in choices if score(c, refers, table) == best]
    if best == len(outputs) or m == 0:
        assert answer == {str(o): c for o, c in enumerate(winners[0])}
        return
    # the answer keeps the fitting part of a best assignment holding the latest candidates (the answer's near
    # misses are left None, so compare what fits): every output it keeps fits under that assignment
    latest = max(winners, key=lambda c: tuple(-1 if x is None else x for x in c))
    holding = dict(enumerate(latest))
    assert kept == {o: c for o, c in holding.items() if c is not None and fits(o, c, holding, refers, table)}
