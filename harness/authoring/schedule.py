"""What a playthrough's lanes play next, decided without threads, I/O or moto: a state machine fed with answers.

Per step: the untouched account, each mistake, the solve. A step's work is ready once the solve before it has
answered (that solve made the state it starts from and resolved its handles). The results' order is fixed up
front: per step its untouched account, its mistakes and its solve (a step that is not chosen has only its solve,
shown only if it did not pass); a step's extra mistakes (`stepeval mutate`'s mutants), known once its solve has
answered, come after all of those, in the order given. Lanes take ready work by rank: the solves (which open the
next step) first, then by step and order; without extras the last solve last, on the first lane, so that its seat
ends serving what that solve left. A step's untouched account goes first to the lane whose seat serves the solve
before it (the first step's, to the first lane, on a copy of the root).

The schedule also says how many copies the state before each step owes (`owed`, `Solved.extras`), and marks the
work that cannot be played because an earlier solve did not complete (it raised, or a solution returned an error:
`Work.unplayable`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

R = TypeVar("R")
Rank = tuple[int, int, int]


@dataclass(frozen=True)
class StepShape:
    """What the schedule needs to know of a step: how many mistakes it has, and whether it was chosen (played in
    full) or is only solved for its handles."""

    mistakes: int
    chosen: bool


@dataclass(frozen=True)
class Work:
    """One scenario for one lane: where its result goes among all results, its step (index) and what it is."""

    slot: int
    step: int
    kind: Literal["untouched", "mistake", "solve"]
    number: int = 0  # a mistake's, from 1: the step's extras are numbered after its own mistakes
    extra: bool = False  # a mistake given once the step's solve answered
    draws: bool = True  # starts from a copy of the state before its step (a solve: from that state itself)
    hands_over: bool = False  # a solve whose state is the next step's (every solve but the last step's)
    unplayable: str | None = None  # why it cannot be played: an earlier solve raised (there is no state)

    @property
    def seed(self) -> int:
        """moto's random seed for the copies of the state before this step: ids are the same on any lane."""
        return self.step + 1


@dataclass(frozen=True)
class Solved:
    """What a solve's answer asks of whoever holds the states: `extras` copies of its step's state wanted in place
    of the one held back for them (None: none was held), and the copies the next step's state owes (None: this was
    the last step)."""

    extras: int | None
    next_copies: int | None


@dataclass(frozen=True)
class _Ready:
    rank: Rank
    lane: int | None  # the lane it must be played on, if any
    work: Work


class Schedule(Generic[R]):
    """The work of a playthrough of `steps` on `lanes` lanes, given out as lanes ask and answered as they play.

    With `extras`, each chosen step's solve may add mistakes when it answers (`solved(..., extras=n)`): the state
    before such a step holds one copy back for them until then, and the last solve is not kept for last.
    """

    def __init__(self, steps: list[StepShape], lanes: int, *, extras: bool = False) -> None:
        if not steps or lanes < 1:
            raise ValueError("a schedule needs at least one step and one lane")
        self.steps = steps
        self.extras = extras
        self._first_slot: list[int] = []
        slots = 0
        for step in steps:
            self._first_slot.append(slots)
            slots += step.mistakes + 2 if step.chosen else 1
        self._results: list[R | None] = [None] * slots
        self._shown = [True] * slots
        self._reported = 0  # results passed on by `report`, in order
        self._ready: list[_Ready] = []
        self._first: list[list[Work]] = [[] for _ in range(lanes)]  # what a lane must play before anything else
        self._playing: dict[int, int] = {}  # slot -> the lane that took it
        self._opening = len(steps) - (not extras)  # solves still to answer that open a step (or add extras)
        self._unplayable: str | None = None
        self._open(0, 0)

    def owed(self, step: int) -> int:
        """The copies the state before `step` owes when it is made: one per mistake and the solve's (which takes
        the state itself), one held back for its extras (see `solved`), and for the first step (the root, which
        is only copied) its untouched account's."""
        shape = self.steps[step]
        if not shape.chosen:
            return 1
        return shape.mistakes + 1 + int(self.extras) + int(step == 0)

    def take(self, lane: int) -> Work | None:
        """The work `lane` plays next, given to it alone; None when it has none now (and none ever after when
        `over`)."""
        if self._first[lane]:
            work = self._first[lane].pop(0)
        else:
            mine = [ready for ready in self._ready if ready.lane in (None, lane)]
            if not mine:
                return None
            chosen = min(mine, key=lambda ready: ready.rank)
            self._ready.remove(chosen)
            work = chosen.work
        self._playing[work.slot] = lane
        return work

    @property
    def over(self) -> bool:
        """No solve is left to answer that could make more work: a lane that has nothing to take is done."""
        return self._opening == 0

    def answered(self, work: Work, result: R) -> None:
        """An untouched account or a mistake answered `result`."""
        if work.kind == "solve":
            raise ValueError("a solve's answer goes to `solved`")
        self._answer(work, result)

    def solved(self, work: Work, result: R, *, ok: bool, raised: str | None = None, extras: int = 0) -> Solved:
        """A solve answered `result` (`ok`: as expected); `raised`: why it left no state (it raised), which makes
        every later step's mistakes and solves unplayable; `extras`: the mistakes to add to its step (taken only
        for a chosen step of a schedule with extras). The next step's work is then ready."""
        if work.kind != "solve":
            raise ValueError(f"{work.kind} is not a solve")
        lane = self._answer(work, result)
        shape = self.steps[work.step]
        self._shown[work.slot] = shape.chosen or not ok
        held = self.extras and shape.chosen
        if held:
            self._add(work.step, extras)
        next_copies = None
        if work.hands_over:
            self._unplayable = self._unplayable or raised
            self._open(work.step + 1, lane)
            next_copies = self.owed(work.step + 1)
        if work.hands_over or self.extras:
            self._opening -= 1
        return Solved(extras if held else None, next_copies)

    @property
    def next_answered(self) -> bool:
        """The next result in order has been answered (`report` has something to pass on)."""
        return self._reported < len(self._results) and self._results[self._reported] is not None

    def report(self) -> list[R]:
        """The results answered since the last call that come next in order, those shown: every result but the
        solves of steps not chosen that passed."""
        batch: list[R] = []
        while self.next_answered:
            result = self._results[self._reported]
            if self._shown[self._reported] and result is not None:
                batch.append(result)
            self._reported += 1
        return batch

    @property
    def complete(self) -> bool:
        """Every result has been reported."""
        return self._reported == len(self._results)

    def _answer(self, work: Work, result: R) -> int:
        if self._results[work.slot] is not None or work.slot not in self._playing:
            raise ValueError(f"slot {work.slot} was not given out, or was answered already")
        self._results[work.slot] = result
        return self._playing.pop(work.slot)

    def _add(self, step: int, extras: int) -> None:
        """A step's extra mistakes, ready, each with a slot after all others."""
        first = self.steps[step].mistakes + 1
        for number in range(first, first + extras):
            self._results.append(None)
            self._shown.append(True)
            work = Work(len(self._results) - 1, step, "mistake", number, extra=True, unplayable=self._unplayable)
            self._ready.append(_Ready((1, step, number), None, work))

    def _open(self, step: int, holder: int) -> None:
        """Make a step's work ready; its untouched account goes to `holder`, whose seat serves the solve before it."""
        shape = self.steps[step]
        slot = self._first_slot[step]
        unplayable = self._unplayable
        if shape.chosen:
            self._first[holder].append(Work(slot, step, "untouched", draws=step == 0))
            for number in range(1, shape.mistakes + 1):
                work = Work(slot + number, step, "mistake", number, unplayable=unplayable)
                self._ready.append(_Ready((1, step, number), None, work))
            slot += 1 + shape.mistakes
        last = step == len(self.steps) - 1
        kept_last = last and not self.extras
        solve = Work(slot, step, "solve", hands_over=not last, unplayable=unplayable)
        self._ready.append(_Ready((2, step, 0) if kept_last else (0, step, 0), 0 if kept_last else None, solve))
