"""The playthrough's schedule on its own: no emulator, no subprocess, no thread. Lanes are simulated: at each turn
one lane asks for work or answers what it holds, in an order the test (or hypothesis) picks."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.authoring.schedule import Schedule, StepShape, Work

Label = tuple[int, str, int]  # (step, kind, number): what a result stands for
Turn = tuple[str, int]  # ("take" | "answer", lane)


@dataclass(frozen=True)
class Shape:
    """A lab as the schedule sees it, and how its solves answer."""

    steps: tuple[StepShape, ...]
    lanes: int
    extras: tuple[int, ...] | None = None  # mistakes each step's solve adds, with extras
    fails: frozenset[int] = frozenset()  # steps whose solve answers, but not as expected
    raises: frozenset[int] = frozenset()  # steps whose solve raises (leaves no state)


@dataclass
class Trace:
    """What a simulated playthrough did: the work given (lane, work) in order, what was reported, each state's
    copies still owed (None: none was made, an earlier solve raised), the copies drawn from a state already done."""

    given: list[tuple[int, Work]] = field(default_factory=list)
    reported: list[Label] = field(default_factory=list)
    owed: dict[int, int | None] = field(default_factory=dict)
    overdrawn: list[Work] = field(default_factory=list)
    solved_by: dict[int, int] = field(default_factory=dict)  # step -> the lane that answered its solve


def label(work: Work) -> Label:
    """The result a work stands for, as the simulated lanes answer it."""
    return (work.step, work.kind, work.number)


def simulate(shape: Shape, pick: Callable[[Sequence[Turn]], Turn]) -> Trace:
    """Play `shape` with lanes that ask and answer in the order `pick` chooses, checking at every turn what must
    hold when work is given (`check_given`); a lane stops when it has nothing to take and the schedule is over."""
    schedule: Schedule[Label] = Schedule(list(shape.steps), shape.lanes, extras=shape.extras is not None)
    trace = Trace(owed={0: schedule.owed(0)})
    holding: dict[int, Work] = {}
    done: set[int] = set()
    waiting: set[int] = set()  # lanes given nothing since the last work given or answered
    while True:
        trace.reported += schedule.report()
        turns = [("answer", lane) for lane in holding] + [
            ("take", lane) for lane in range(shape.lanes) if lane not in holding and lane not in done
        ]
        if not turns:
            break
        assert holding or not waiting.issuperset(lane for _, lane in turns), "no lane can ever be given work"
        kind, lane = pick(turns)
        if kind == "answer":
            answer(shape, schedule, trace, lane, holding.pop(lane))
            waiting.clear()
        elif (work := schedule.take(lane)) is not None:
            check_given(shape, trace, lane, work)
            holding[lane] = work
            trace.given.append((lane, work))
            draw(trace, work)
            waiting.clear()
        elif schedule.over:
            done.add(lane)
        else:
            waiting.add(lane)
    trace.reported += schedule.report()
    assert schedule.complete and schedule.over
    return trace


def check_given(shape: Shape, trace: Trace, lane: int, work: Work) -> None:
    """A step's work is given once the solve before it answered, to one lane; its untouched account to the lane
    whose seat serves that solve, as the next thing it plays; without extras, the last solve to the first lane,
    once every mistake was given."""
    assert work.step == 0 or work.step - 1 in trace.solved_by  # the solve before it made its state
    assert work.slot not in {w.slot for _, w in trace.given}  # given once, to one lane
    if work.kind == "untouched" and work.step > 0:
        assert lane == trace.solved_by[work.step - 1]
        previous = [w for other, w in trace.given if other == lane][-1]
        assert (previous.step, previous.kind) == (work.step - 1, "solve")
    if not shape.extras and work.kind == "solve" and work.step == len(shape.steps) - 1:
        assert lane == 0  # the first lane's seat ends serving what the last solve left
        mistakes = sum(step.mistakes for step in shape.steps if step.chosen)
        assert [w.kind for _, w in trace.given].count("mistake") == mistakes


def draw(trace: Trace, work: Work) -> None:
    """A copy of the state before the work's step (the solve: the state itself), as a player would take it."""
    if not work.draws or work.unplayable is not None:
        return
    left = trace.owed[work.step]
    if not left:
        trace.overdrawn.append(work)
    else:
        trace.owed[work.step] = left - 1


def answer(shape: Shape, schedule: Schedule[Label], trace: Trace, lane: int, work: Work) -> None:
    """Answer the lane's work as `shape` says its solves go; what a solve's answer says of copies owed is noted:
    its extras' in place of the one held back, and the next step's (none when there is no state to copy)."""
    if work.kind != "solve":
        schedule.answered(work, label(work))
        return
    trace.solved_by[work.step] = lane
    raises = work.step in shape.raises or work.unplayable is not None
    ok = not raises and work.step not in shape.fails
    extras = shape.extras[work.step] if shape.extras else 0
    raised = f"step {work.step} raised" if raises else None
    solved = schedule.solved(work, label(work), ok=ok, raised=raised, extras=extras)
    if solved.extras is not None:
        held = trace.owed[work.step]
        if held is not None:
            assert held >= 1  # the copy held back for the extras is still owed: the state is not done
            trace.owed[work.step] = held + solved.extras - 1
    if solved.next_copies is not None:
        trace.owed[work.step + 1] = None if work.unplayable is not None or raises else solved.next_copies


def expected_report(shape: Shape) -> list[Label]:
    """Per step its untouched account, mistakes and solve (a step not chosen: its solve, only if it did not pass);
    then each chosen step's extras, in step order."""
    first_raise = min(shape.raises, default=len(shape.steps))
    labels: list[Label] = []
    for index, step in enumerate(shape.steps):
        passed = index < first_raise and index not in shape.fails
        if step.chosen:
            labels += [(index, "untouched", 0), *((index, "mistake", n) for n in range(1, step.mistakes + 1))]
        if step.chosen or not passed:
            labels.append((index, "solve", 0))
    for index, step in enumerate(shape.steps):
        if shape.extras and step.chosen:
            first = step.mistakes + 1
            labels += [(index, "mistake", n) for n in range(first, first + shape.extras[index])]
    return labels


def in_order(turns: Sequence[Turn]) -> Turn:
    """Answer first, then the lowest lane: a deterministic interleaving."""
    return min(turns)


def seeded(seed: int) -> Callable[[Sequence[Turn]], Turn]:
    """A random interleaving, the same for the same seed."""
    chooser = random.Random(seed)
    return lambda turns: chooser.choice(list(turns))


def test_one_lane_plays_each_solve_first_and_the_last_solve_last() -> None:
    shape = Shape((StepShape(2, True), StepShape(1, True)), lanes=1)
    trace = simulate(shape, in_order)
    assert [label(w) for _, w in trace.given] == [
        (0, "untouched", 0),
        (0, "solve", 0),  # the solve first: it opens the next step
        (1, "untouched", 0),  # on the copy that solve's evaluation ran on, right after it
        (0, "mistake", 1),
        (0, "mistake", 2),
        (1, "mistake", 1),
        (1, "solve", 0),  # the last solve last: the seat ends serving what it left
    ]
    assert trace.reported == expected_report(shape)
    assert [w.slot for _, w in trace.given] == [0, 3, 4, 1, 2, 5, 6]


def test_seeds_and_copies_follow_the_steps() -> None:
    shape = Shape((StepShape(2, True), StepShape(0, False), StepShape(1, True)), lanes=2)
    trace = simulate(shape, in_order)
    by_label = {label(w): w for _, w in trace.given}
    assert {w.seed for w in by_label.values() if w.step == 2} == {3}
    assert by_label[0, "untouched", 0].draws  # a copy of the root
    assert not by_label[2, "untouched", 0].draws  # the seat already serves the state it evaluates
    assert [w.hands_over for w in by_label.values() if w.kind == "solve"] == [True, True, False]


def test_copies_owed_by_each_state() -> None:
    schedule: Schedule[Label] = Schedule([StepShape(3, True), StepShape(2, True), StepShape(4, False)], 2)
    assert [schedule.owed(step) for step in range(3)] == [5, 3, 1]  # the root's untouched account copies it too
    with_extras: Schedule[Label] = Schedule([StepShape(3, True), StepShape(4, False)], 2, extras=True)
    assert [with_extras.owed(step) for step in range(2)] == [6, 1]  # one held back for the chosen step's extras


def test_a_second_lane_gets_the_next_steps_untouched_account_on_the_seat_of_the_solve_before_it() -> None:
    shape = Shape((StepShape(1, True), StepShape(1, True)), lanes=2)
    schedule: Schedule[Label] = Schedule(list(shape.steps), 2)
    untouched, solve = schedule.take(0), schedule.take(1)
    assert untouched == Work(0, 0, "untouched") and solve == Work(2, 0, "solve", hands_over=True)
    schedule.answered(untouched, label(untouched))
    mistake = schedule.take(0)
    assert mistake == Work(1, 0, "mistake", 1)
    schedule.answered(mistake, label(mistake))
    assert schedule.take(0) is None and not schedule.over  # nothing of step 1 before its solve answered
    assert schedule.solved(solve, label(solve), ok=True).next_copies == 2
    assert schedule.take(0) == Work(4, 1, "mistake", 1)  # lane 0 cannot have step 1's untouched account
    assert schedule.take(1) == Work(3, 1, "untouched", draws=False)


def test_a_step_not_chosen_is_only_solved_and_shown_only_when_its_solve_fails() -> None:
    steps = (StepShape(2, False), StepShape(2, False), StepShape(1, True))
    trace = simulate(Shape(steps, lanes=2, fails=frozenset({1})), in_order)
    assert trace.reported == [(1, "solve", 0), (2, "untouched", 0), (2, "mistake", 1), (2, "solve", 0)]
    assert {w.kind for _, w in trace.given if w.step < 2} == {"solve"}


def test_extra_mistakes_come_once_their_solve_answered_and_are_reported_after_all_others() -> None:
    steps = (StepShape(1, True), StepShape(1, False), StepShape(1, True))
    shape = Shape(steps, lanes=2, extras=(2, 5, 1))
    trace = simulate(shape, in_order)
    order = [label(w) for _, w in trace.given]
    extras = [label(w) for _, w in trace.given if w.extra]
    assert extras == [(0, "mistake", 2), (0, "mistake", 3), (2, "mistake", 2)]  # none for the step not chosen
    assert all(order.index(extra) > order.index((extra[0], "solve", 0)) for extra in extras)
    assert trace.reported == expected_report(shape)
    assert trace.reported[-3:] == [(0, "mistake", 2), (0, "mistake", 3), (2, "mistake", 2)]
    assert all(left == 0 for left in trace.owed.values()) and not trace.overdrawn


def test_with_extras_the_last_solve_is_no_longer_kept_for_the_first_lane() -> None:
    schedule: Schedule[Label] = Schedule([StepShape(0, True)], 2, extras=True)
    assert schedule.take(0) == Work(0, 0, "untouched")
    assert schedule.take(1) == Work(1, 0, "solve")  # any lane, first
    assert not schedule.over  # its answer may still add mistakes
    solve = Work(1, 0, "solve")
    assert schedule.solved(solve, label(solve), ok=True, extras=1).extras == 1
    assert schedule.over and schedule.take(1) == Work(2, 0, "mistake", 1, extra=True)


def test_a_solve_that_raises_makes_every_later_mistake_and_solve_unplayable() -> None:
    steps = (StepShape(1, True), StepShape(1, False), StepShape(2, True), StepShape(1, True))
    shape = Shape(steps, lanes=2, raises=frozenset({1}))
    trace = simulate(shape, in_order)
    unplayable = {label(w): w.unplayable for _, w in trace.given if w.unplayable is not None}
    assert unplayable == {
        (2, "mistake", 1): "step 1 raised",
        (2, "mistake", 2): "step 1 raised",
        (2, "solve", 0): "step 1 raised",
        (3, "mistake", 1): "step 1 raised",  # the first raise is the reason, not the unplayable solve's
        (3, "solve", 0): "step 1 raised",
    }
    assert trace.reported == expected_report(shape)  # the raising solve is shown, though its step is not chosen
    assert trace.owed == {0: 0, 1: 0, 2: None, 3: None}  # no state after the raise: nothing to copy


def test_a_result_goes_where_its_work_was_given_once() -> None:
    schedule: Schedule[Label] = Schedule([StepShape(1, True)], 1)
    untouched = schedule.take(0)
    assert untouched is not None
    with pytest.raises(ValueError, match="goes to `solved`"):
        schedule.answered(Work(2, 0, "solve"), (0, "solve", 0))
    with pytest.raises(ValueError, match="not given out"):
        schedule.answered(Work(1, 0, "mistake", 1), (0, "mistake", 1))
    schedule.answered(untouched, label(untouched))
    with pytest.raises(ValueError, match="answered already"):
        schedule.answered(untouched, label(untouched))
    with pytest.raises(ValueError, match="is not a solve"):
        schedule.solved(untouched, label(untouched), ok=True)


steps_strategy = st.lists(st.builds(StepShape, st.integers(0, 4), st.booleans()), min_size=1, max_size=6)


@st.composite
def shapes(draw: st.DrawFn) -> Shape:
    """Random labs: steps x mistakes x lanes, with or without extras, some solves failing or raising. The last step
    is always chosen (a playthrough plays up to the last chosen step)."""
    steps = draw(steps_strategy)
    steps[-1] = StepShape(steps[-1].mistakes, True)
    count = len(steps)
    extras = draw(st.none() | st.tuples(*(st.integers(0, 3) for _ in range(count))))
    fails = draw(st.frozensets(st.integers(0, count - 1)))
    raises = draw(st.frozensets(st.integers(0, count - 1), max_size=2))
    return Shape(tuple(steps), draw(st.integers(1, 3)), extras, fails, raises)


@settings(max_examples=300, deadline=None)
@given(shape=shapes(), data=st.data())
def test_any_interleaving_gives_each_work_once_owes_every_copy_it_draws_and_reports_in_order(
    shape: Shape, data: st.DataObject
) -> None:
    trace = simulate(shape, lambda turns: data.draw(st.sampled_from(list(turns))))
    assert trace.reported == expected_report(shape)
    slots = [w.slot for _, w in trace.given]
    assert sorted(slots) == list(range(len(slots)))  # every result's work given, once
    assert not trace.overdrawn  # no copy drawn from a state that owed none any more
    assert all(left in (0, None) for left in trace.owed.values())  # every copy owed was drawn
    first_raise = min(shape.raises, default=len(shape.steps))
    for _, work in trace.given:
        playable = work.kind == "untouched" or work.step <= first_raise
        assert (work.unplayable is None) is playable
        assert work.seed == work.step + 1


@settings(max_examples=100, deadline=None)
@given(shape=shapes(), seed=st.integers(0, 2**32))
def test_the_same_answers_in_the_same_order_give_the_same_work_to_the_same_lanes(shape: Shape, seed: int) -> None:
    first, second = simulate(shape, seeded(seed)), simulate(shape, seeded(seed))
    assert first.given == second.given and first.reported == second.reported == expected_report(shape)
