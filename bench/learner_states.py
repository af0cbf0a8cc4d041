"""Learner states for bench/store.py: a lab's scenarios as the accounts recorded evaluations were made on, and what
it takes to evaluate one of them on moto again (empty accounts, the scenario's calls, the evaluation).

A state is the earlier steps' solves, then its own actions (none for the untouched account; the solve first for a
mistake made after it). Empty accounts come two ways: a fresh copy of harness.authoring.emulator's root (a fork: what
`stepeval test` uses), or a reset of a plain moto server (`POST /moto-api/reset`). Either is seeded once, the
same way, so a state's ids are the same however often and however it is rebuilt: the context recorded with it
(handles, events) still names its resources.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

from harness.authoring.emulator import MotoState
from harness.authoring.events import EventRecorder
from harness.authoring.playthrough import Lane, ScenarioSession, given_events, load_scenarios
from harness.authoring.scenarios import Action, Scenario
from harness.core.account import Account
from harness.core.contract import Answer, ContextInput, Event, Handle
from harness.core.lab import Lab
from harness.sandbox.runner import Runner
from harness.store.recording import RecordingTap

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
    """Lanes that each build a state on empty accounts of their own and evaluate it there, as many at once as
    there are lanes; `fresh(n)` gives lane n empty accounts (and ends them after)."""

    def __init__(
        self, runner: Runner, sandboxes: Sequence[Account], fresh: Callable[[int], AbstractContextManager[object]]
    ) -> None:
        self.runner = runner
        self.sandboxes = sandboxes
        self.fresh = fresh
        self.sessions = [ScenarioSession(str(sandbox.endpoint_url), sandbox) for sandbox in sandboxes]
        self.recorders = [EventRecorder(session) for session in self.sessions]

    @classmethod
    def forked(cls, lanes: Sequence[Lane]) -> Lanes:
        """On an Emulator's seats: each state on a fresh copy of its root."""
        root = lanes[0].seat.emulator.root
        assert root is not None

        @contextlib.contextmanager
        def copy(number: int) -> Iterator[MotoState]:
            state = root.fork(lanes[number].seat, SEED)
            try:
                yield state
            finally:
                state.close()

        return cls(lanes[0].runner, [lane.account for lane in lanes], copy)

    @classmethod
    def reset(cls, runner: Runner, sandboxes: Sequence[Account]) -> Lanes:
        """On plain moto servers, one per lane: each state after a reset of its server."""

        @contextlib.contextmanager
        def reset(number: int) -> Iterator[None]:
            for path in ("reset", f"seed?a={SEED}"):
                url = f"{sandboxes[number].endpoint_url}/moto-api/{path}"
                with urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=30):
                    pass
            yield

        return cls(runner, sandboxes, reset)

    def evaluate(
        self,
        states: Sequence[LearnerState],
        resolved: Sequence[Handle] = (),
        contexts: Sequence[ContextInput] | None = None,
        taps: Callable[[], RecordingTap] | None = None,
    ) -> list[tuple[Evaluated, RecordingTap | None]]:
        """Each state built and evaluated, in order: with the handles `resolved` and the events its calls made, or
        with its context as recorded (`contexts`: its handles and events); each with a tap of `taps`, if given."""
        work: queue.SimpleQueue[int] = queue.SimpleQueue()
        for index in range(len(states)):
            work.put(index)
        results: list[tuple[Evaluated, RecordingTap | None] | None] = [None] * len(states)
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

        threads = [threading.Thread(target=lane, args=(n,), daemon=True) for n in range(len(self.sandboxes))]
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
        taps: Callable[[], RecordingTap] | None,
    ) -> tuple[Evaluated, RecordingTap | None]:
        session, recorder = self.sessions[number], self.recorders[number]
        started = time.perf_counter()
        with self.fresh(number):
            handles = {handle.name: handle.id for handle in (given.resolved if given is not None else resolved)}
            for action in state.earlier:
                action(session, handles)
            recorder.start()
            for action in state.own:
                action(session, handles)
            if given is None:
                seen = [dict(event) for event in recorder.events]
                events: tuple[Event, ...] = given_events(state.scenario, seen) if state.scenario else ()
                given = ContextInput(resolved=list(resolved), events=list(events))
            tap = taps() if taps is not None else None
            answer = self.runner.evaluate(state.step, given, self.sandboxes[number], tap=tap)
        return Evaluated(state, given, answer, time.perf_counter() - started), tap
