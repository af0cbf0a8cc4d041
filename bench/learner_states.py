"""Learner states for bench/store.py: a lab's scenarios as the accounts recorded evaluations were made on, and what
it takes to evaluate one of them on moto again (a fresh copy of the empty accounts, the scenario's calls, the
evaluation).

A state is the earlier steps' solves, then its own actions (none for the untouched account; the solve first for a
mistake made after it). Each copy is seeded once, so a state's ids are the same however often it is rebuilt: the
context recorded with it (handles, events) still names its resources.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.contract import Answer, ContextInput, Event, Handle
from harness.emulator import MotoState
from harness.lab import Lab
from harness.playthrough import Lane, ScenarioSession, _given_events, load_scenarios
from harness.recorder import EventRecorder
from harness.scenarios import Action, Scenario
from harness.store.recording import Recorder

SEED = 1


@dataclass(frozen=True)
class LearnerState:
    """One account to evaluate a step on, as a scenario leaves it."""

    step: str
    name: str
    earlier: tuple[Action, ...]  # the solves of the steps before, in order
    own: tuple[Action, ...]  # its own actions (their creations are the step's events)
    scenario: Scenario | None = None  # how the events are given (None: as recorded)


@dataclass(frozen=True)
class Evaluated:
    """A state's evaluation: its context, its answer, how long building the state and evaluating it took."""

    state: LearnerState
    context: ContextInput
    answer: Answer
    seconds: float


def step_states(lab: Lab) -> list[list[LearnerState]]:
    """Per step, in order: the untouched account, each mistake, the solve (the last of each list)."""
    scenarios = load_scenarios(lab)
    solved: list[Action] = []
    steps = []
    for key in lab.steps:
        step = scenarios[key]
        earlier = tuple(solved)
        states = [LearnerState(key, "untouched account", earlier, ())]
        for mistake in step.mistakes:
            own = (step.solve.action, mistake.action) if mistake.after_solve else (mistake.action,)
            states.append(LearnerState(key, mistake.name, earlier, own, mistake))
        states.append(LearnerState(key, step.solve.name, earlier, (step.solve.action,), step.solve))
        steps.append(states)
        solved.append(step.solve.action)
    return steps


class Lanes:
    """Lanes (a seat and the runner on it) that each build a state on a fresh copy of moto's empty accounts
    and evaluate it there, as many at once as there are lanes."""

    def __init__(self, lanes: Sequence[Lane], root: MotoState) -> None:
        self.lanes = lanes
        self.root = root
        self.sessions = [ScenarioSession(lane.endpoint_url, lane.sandbox) for lane in lanes]
        self.recorders = [EventRecorder(session) for session in self.sessions]

    def evaluate(
        self,
        states: Sequence[LearnerState],
        resolved: Sequence[Handle] = (),
        contexts: Sequence[ContextInput] | None = None,
        taps: Callable[[], Recorder] | None = None,
    ) -> list[tuple[Evaluated, Recorder | None]]:
        """Each state built and evaluated, in order: with the handles `resolved` and the events its calls made, or
        with its context as recorded (`contexts`: its handles and events); each with a tap of `taps`, if given."""
        work: queue.SimpleQueue[int] = queue.SimpleQueue()
        for index in range(len(states)):
            work.put(index)
        results: list[tuple[Evaluated, Recorder | None] | None] = [None] * len(states)
        failures: list[BaseException] = []

        def lane(number: int) -> None:
            while failures == []:
                try:
                    index = work.get_nowait()
                except queue.Empty:
                    return
                try:
                    given = contexts[index] if contexts is not None else None
                    results[index] = self._one(number, states[index], resolved, given, taps)
                except BaseException as exc:  # the caller raises it
                    failures.append(exc)

        threads = [threading.Thread(target=lane, args=(n,), daemon=True) for n in range(len(self.lanes))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise failures[0]
        return [result for result in results if result is not None]

    def _one(
        self,
        number: int,
        state: LearnerState,
        resolved: Sequence[Handle],
        given: ContextInput | None,
        taps: Callable[[], Recorder] | None,
    ) -> tuple[Evaluated, Recorder | None]:
        lane, session, recorder = self.lanes[number], self.sessions[number], self.recorders[number]
        started = time.perf_counter()
        copy = self.root.fork(lane.seat, SEED)
        try:
            handles = {handle.name: handle.id for handle in (given.resolved if given is not None else resolved)}
            for action in state.earlier:
                action(session, handles)
            recorder.start()
            for action in state.own:
                action(session, handles)
            if given is None:
                seen = [dict(event) for event in recorder.events]
                events: tuple[Event, ...] = _given_events(state.scenario, seen) if state.scenario else ()
                given = ContextInput(resolved=list(resolved), events=list(events))
            tap = taps() if taps is not None else None
            answer = lane.runner.evaluate(state.step, given, lane.sandbox, tap=tap)
        finally:
            copy.close()
        return Evaluated(state, given, answer, time.perf_counter() - started), tap
