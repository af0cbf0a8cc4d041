"""Play a lab's scenarios on copies of moto through the same Runner as `stepeval run`, and judge each answer.

For each step, in spec order:
  - the untouched account (as the earlier solves left it, no events) must fail;
  - each mistake, from a fresh copy of the state before the step, must answer as it says;
  - the solve, on the state before the step itself, must pass; its answer's `resolved` is carried forward, as the
    platform would.

A fresh copy is a fork of the moto process that holds the state before the step (`harness.authoring.emulator`), forked
ahead (one spare per lane) and put on the lane's seat when it asks. The solve acts on that process itself (the
copies still owed are then made from a keeper forked from it), and hands its seat over to a copy of itself for
its evaluation: the process is then the state before the next step, one fork from the root at any depth. Nothing
is replayed, and no fork costs more at step 30 than at step 1 (the kernel's work at each fork and exit grows with
how many forks a process is from the first), so the time is linear in the lab's depth. moto's ids are random, so
each copy is seeded before its actions (the step's number): ids are the same on every run and every lane.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from harness.authoring.emulator import Emulator, MotoState
from harness.authoring.player import Lane, LaneSession, Played, Player, ScenarioSession, given_events
from harness.authoring.prestart import SCENARIO_DIR, SOLUTION_DIR, services_named
from harness.authoring.results import UNTOUCHED, ScenarioResult
from harness.authoring.scenario_files import StepScenarios, load_scenarios
from harness.authoring.scenarios import Scenario
from harness.authoring.schedule import Schedule, StepShape, Work
from harness.authoring.states import StateBefore, StateTemplate
from harness.core.errors import LabError
from harness.core.lab import Lab
from harness.core.paths import services_named_in
from harness.sandbox.runner import Runner

__all__ = [
    "UNTOUCHED",
    "Lane",
    "LaneSession",
    "ScenarioResult",
    "ScenarioSession",
    "StepScenarios",
    "given_events",
    "lab_services",
    "load_scenarios",
    "play",
    "play_lanes",
]

Extra = Callable[[str, ScenarioResult], Sequence[Scenario]]
Then = Callable[[ScenarioResult, Any], None]


def lab_services(lab: Lab) -> set[str]:
    """The AWS services the lab's step modules and scenarios name (`client("ec2")`), for `Emulator(services=)`."""
    return services_named(lab.root)


def play(
    lab: Lab,
    runner: Runner,
    *,
    select: Callable[[str], bool] | None = None,
    on_result: Callable[[ScenarioResult], None] | None = None,
    env: Mapping[str, str] | None = None,
) -> list[ScenarioResult]:
    """Play the scenarios of the selected steps (all by default) on moto processes of its own; judge each answer.

    `on_result` is called with each result as soon as it is known (for a live progress line); `env` is added to
    the moto processes' environment (by default, what the lab spec's `emulator:` asks). Earlier steps are always
    solved (their handles are needed); their solve is reported only if it does not pass.
    """
    environment = lab.spec.emulator.environment() if env is None else env
    with Emulator(1, env=environment, services=lab_services(lab)) as emulator:
        seat = emulator.seats[0]
        return play_lanes(lab, [Lane(runner, seat, seat.sandbox())], select=select, on_result=on_result)


def play_lanes(
    lab: Lab,
    lanes: Sequence[Lane],
    *,
    select: Callable[[str], bool] | None = None,
    on_result: Callable[[ScenarioResult], None] | None = None,
    scenarios: Mapping[str, StepScenarios] | None = None,
    extra: Extra | None = None,
    then: Then | None = None,
) -> list[ScenarioResult]:
    """`play` on several seats of one `Emulator` at once: the same results, in the same order, sooner.

    `scenarios` replaces the lab's own (`load_scenarios`), e.g. with generated mistakes (`stepeval mutate`).
    `extra(key, result)`, called (in a lane's thread) once each step's solve has answered `result`, gives more
    mistakes of a selected step (what it gives for another is not played), played like the others from a copy of
    the state before it (`stepeval mutate`'s mutants, made from what the solve did); their results follow all
    the others, in the order given. With `extra`, the last solve is not kept for last (nor for the first lane): no
    seat is left serving what it left. `then(result, session)` is called once each extra mistake is judged, in its
    lane's thread, with the lane's session on the copy it played on (e.g. to look at what a passing one built).

    Each mistake starts from a copy of the state before its step (a fork of the moto process that holds it, which
    is the one the solve before it acted on), and each solve from that process itself; those of a step are
    independent, so each lane (one thread, one seat) plays whichever is next. A step's scenarios start once the
    solve before it has answered (its handles are needed); the untouched account is evaluated on the copy that
    solve's evaluation ran on, after it. Each copy is seeded before its actions, so ids are the same on any lane.
    `on_result` is called in this thread, in the order of the results. When this returns, the first lane's seat
    serves what the last solve left.
    """
    if not lanes:
        raise ValueError("play_lanes needs at least one lane")
    scenarios = load_scenarios(lab) if scenarios is None else scenarios
    steps, chosen = _needed(lab, scenarios, select)
    if not chosen:
        return []
    root = lanes[0].seat.emulator.root
    if root is None:
        raise ValueError("play_lanes needs a started Emulator (use it as a context manager)")
    players = [Player(lane) for lane in lanes]
    named = [services_named_in([lab.step(step.key).module_path, *step.sources]) for step in steps]
    root.prepare(1, named[0])  # the first step's copies are seeded with 1 (see `Work.seed`)
    return _Playthrough(steps, chosen, players, named, extra, then).run(root, on_result)


def _needed(
    lab: Lab, scenarios: Mapping[str, StepScenarios], select: Callable[[str], bool] | None
) -> tuple[list[StepScenarios], set[str]]:
    """The steps to play, up to the last selected (the earlier ones for their handles), and the selected; a
    LabError names every step among them without a scenario file."""
    order = list(lab.steps)
    chosen = [key for key in order if select is None or select(key)]
    needed = order[: order.index(chosen[-1]) + 1] if chosen else []
    missing = [key for key in needed if key not in scenarios]
    if missing:
        raise LabError(
            [
                f"{lab.root / SOLUTION_DIR / (key.replace('.', '_') + '.py')}: missing: step {key} needs a solution "
                f"(or a @solve in {SCENARIO_DIR}/{key.replace('.', '_')}.py)"
                for key in missing
            ]
        )
    return [scenarios[key] for key in needed], set(chosen)


class _Playthrough:
    """The lanes' threads, each playing on its seat what the schedule gives it, and the results passed on in their
    order as they come. One Condition guards the schedule, the states before the steps and the extra mistakes."""

    def __init__(
        self,
        steps: list[StepScenarios],
        chosen: set[str],
        players: list[Player],
        named: list[set[str]],
        extra: Extra | None,
        then: Then | None,
    ) -> None:
        self.steps = steps
        self.players = players
        self.named = named  # the services each step's module and scenarios name, for MotoState.prepare
        self.extra = extra
        self.then = then
        shapes = [StepShape(len(step.mistakes), step.key in chosen) for step in steps]
        self.schedule: Schedule[ScenarioResult] = Schedule(shapes, len(players), extras=extra is not None)
        self.mistakes = [list(step.mistakes) for step in steps]  # and each step's extras, once its solve answered
        self.befores: list[StateBefore] = []  # the state before each step opened so far
        self.failure: BaseException | None = None
        self.condition = threading.Condition()
        self.making = ThreadPoolExecutor(len(players), thread_name_prefix="moto-spares")  # the templates' spares

    def run(self, root: MotoState, on_result: Callable[[ScenarioResult], None] | None) -> list[ScenarioResult]:
        """Play from `root` (the accounts before the first step; its untouched account is a copy of it too)."""
        with self.making:
            template = StateTemplate(root, self.schedule.owed(0), self.making, len(self.players), closes=False)
            self.befores.append(StateBefore(template))
            return self._report(on_result)

    def _report(self, on_result: Callable[[ScenarioResult], None] | None) -> list[ScenarioResult]:
        """Start the lanes and pass the results on in their order; the first lane's failure, raised."""
        threads = [
            threading.Thread(target=self._lane, args=(index,), name=f"playthrough-lane-{index}", daemon=True)
            for index in range(len(self.players))
        ]
        for thread in threads:
            thread.start()
        try:
            reported = self._pass_on(on_result)
        except BaseException:
            self._stop(_Aborted("the playthrough was interrupted"))
            raise
        for thread in threads:
            thread.join()
        if self.failure is not None:
            raise self.failure
        return reported

    def _pass_on(self, on_result: Callable[[ScenarioResult], None] | None) -> list[ScenarioResult]:
        """The results shown, in their order as they come (each to `on_result` too), until the last or a failure."""
        reported: list[ScenarioResult] = []
        while not self.schedule.complete:
            with self.condition:
                while self.failure is None and not self.schedule.next_answered:
                    self.condition.wait()
                if self.failure is not None:
                    break
                batch = self.schedule.report()
            for result in batch:
                reported.append(result)
                if on_result is not None:
                    on_result(result)
        return reported

    def _stop(self, failure: BaseException) -> None:
        with self.condition:
            if self.failure is None:
                self.failure = failure
            self.condition.notify_all()

    def _lane(self, index: int) -> None:
        player = self.players[index]
        while (work := self._take(index)) is not None:
            try:
                played = self._play(player, work)
                extras = self.extra(played.result.step, played.result) if self.extra and work.kind == "solve" else ()
                with self.condition:
                    if self.failure is not None:  # stopped meanwhile (an interrupt): the spares' pool may be shut
                        return
                    if work.kind == "solve":
                        self._solved(work, played, extras)
                    else:
                        self.schedule.answered(work, played.result)
                    self.condition.notify_all()
            except BaseException as exc:  # a server or worker that broke: the caller gets it, as from play()
                self._stop(exc)
                return

    def _take(self, index: int) -> Work | None:
        """The lane's next work, once there is some; None when there will be none (or the playthrough stopped)."""
        with self.condition:
            while self.failure is None:
                work = self.schedule.take(index)
                if work is not None:
                    return work
                if self.schedule.over:
                    return None
                self.condition.wait()
            return None

    def _play(self, player: Player, work: Work) -> Played:
        step, before = self.steps[work.step], self.befores[work.step]
        if work.kind == "untouched":
            return Played(player.untouched(step.key, work, before))
        if work.kind == "solve":
            return player.solve(step, work, before, self.named[work.step + 1] if work.hands_over else None)
        result = player.mistake(step, self.mistakes[work.step][work.number - 1], work, before)
        if work.extra and self.then is not None:
            self.then(result, player.session)  # the seat still serves the copy it played on
        return Played(result)

    def _solved(self, work: Work, played: Played, extras: Sequence[Scenario]) -> None:
        """A solve answered: its step's extras added and their copies settled; the next step's state kept (what the
        solve left, if it did not raise) as the template of its copies."""
        result = played.result
        raised = None
        if work.hands_over and played.after is None:
            raised = f"not played: step {result.step}'s solve did not complete:\n{result.detail}"
        solved = self.schedule.solved(work, result, ok=result.ok, raised=raised, extras=len(extras))
        before = self.befores[work.step]
        if solved.extras is not None:
            self.mistakes[work.step].extend(extras)
            if before.template is not None:
                before.template.settle(solved.extras)
        if solved.next_copies is not None:
            spares = len(self.players)
            after = played.after
            template = StateTemplate(after, solved.next_copies, self.making, spares) if after is not None else None
            self.befores.append(before.then(template, result.answer, played.resolved))


class _Aborted(Exception):
    """The playthrough stopped before its end (an interrupt, or another lane's failure)."""
