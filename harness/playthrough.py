"""Play a lab's scenarios on a moto server through the same Runner as `stepeval run`, and judge each answer.

For each step, in spec order:
  - the untouched account (as the earlier solves left it, no events) must fail;
  - each mistake, from a fresh copy of the state before the step, must answer as it says;
  - the solve, from a fresh copy, must pass; its answer's `resolved` is carried forward, as the platform would.

A fresh copy is a reset moto server on which the earlier solves are replayed. moto's ids are random, so the
random generator is seeded before each step's actions: a replayed solve creates the very ids its handles name
(checked: a replay that creates different resources is reported, not silently evaluated).
"""

from __future__ import annotations

import re
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import boto3
import botocore.session

from harness.account import SandboxSpec
from harness.contract import Answer, ContextInput, Event, Handle
from harness.errors import LabError
from harness.lab import Lab
from harness.loader import LoadError, import_step, trimmed_traceback
from harness.recorder import EventRecorder
from harness.runner import Runner
from harness.sandbox import client_config, shared_loader
from harness.scenarios import SCENARIO_ATTRIBUTE, Scenario

SCENARIO_DIR = "scenarios"
STEM = re.compile(r"[0-9]{2}_[0-9]{2}")
UNTOUCHED = "untouched account"
MOTO_API_TIMEOUT_S = 10

Kind = Literal["negative", "mistake", "solve"]
Got = Literal["pass", "fail", "error", "broken"]


@dataclass(frozen=True)
class StepScenarios:
    """The scenarios of one step, as written in `scenarios/NN_NN.py`."""

    key: str
    path: Path
    solve: Scenario
    mistakes: tuple[Scenario, ...]


@dataclass(frozen=True)
class ScenarioResult:
    """What one scenario expected, what the evaluation answered, and whether that is right (`ok`).

    `got` is the answer's status, or `broken` when the scenario (or a solve replayed for it) raised: then
    `detail` holds the traceback and there is no answer. `events` are those the evaluator was given.
    """

    step: str
    scenario: str
    kind: Kind
    expected: Literal["pass", "fail"]
    expected_issue: str | None
    got: Got
    issue: str | None
    ok: bool
    duration_ms: float
    detail: str
    events: tuple[Event, ...] = ()
    answer: Answer | None = None


class _ScenarioBroken(Exception):
    """A scenario (or an earlier solve replayed for it) raised or did not replay the same: not the evaluator's fault."""


def load_scenarios(lab: Lab) -> dict[str, StepScenarios]:
    """Every `scenarios/NN_NN.py` of the lab, by step key; LabError names each file that is wrong."""
    directory = lab.root / SCENARIO_DIR
    paths = sorted(directory.glob("[!_]*.py")) if directory.is_dir() else []
    found: dict[str, StepScenarios] = {}
    problems: list[str] = []
    for path in paths:
        try:
            key = _step_key(lab, path)
            found[key] = _load_file(key, path)
        except LabError as exc:
            problems.extend(exc.problems)
    if problems:
        raise LabError(problems)
    return found


def _step_key(lab: Lab, path: Path) -> str:
    if not STEM.fullmatch(path.stem):
        raise LabError([f"{path}: the file name is not a step key such as 01_02.py"])
    key = path.stem.replace("_", ".")
    if key not in lab.steps:
        raise LabError([f"{path}: no step {key} in this lab (steps: {', '.join(lab.steps)})"])
    return key


def _load_file(key: str, path: Path) -> StepScenarios:
    where = f"{path}: step {key}"
    try:
        module = import_step(path)
    except LoadError as exc:
        raise LabError([f"{where}: {exc}"]) from None
    marked = (getattr(value, SCENARIO_ATTRIBUTE, None) for value in vars(module).values())
    scenarios = [s for s in marked if isinstance(s, Scenario)]
    solves = [s for s in scenarios if s.kind == "solve"]
    problems = []
    if len(solves) != 1:
        named = ", ".join(s.name for s in solves)
        problems.append(f"{where}: needs exactly one @solve (found {len(solves)}{': ' if named else ''}{named})")
    for scenario in scenarios:
        try:
            re.compile(scenario.issue or "")
        except re.error as exc:
            problems.append(f"{where}: {scenario.name}: issue pattern {scenario.issue!r} is not a regex: {exc}")
    if problems:
        raise LabError(problems)
    mistakes = tuple(s for s in scenarios if s.kind == "mistake")
    return StepScenarios(key, path, solves[0], mistakes)


class ScenarioSession(boto3.Session):
    """The learner's session on the emulator: every client goes to the endpoint and is built once.

    A playthrough's lanes each have one, all sharing the service models (one loader), so clients are built
    under a lock shared by every session: a loader is not known to be thread-safe.
    """

    _building = threading.Lock()

    def __init__(self, endpoint_url: str, sandbox: SandboxSpec) -> None:
        core = botocore.session.get_session()
        core.register_component("data_loader", shared_loader())
        core.set_default_client_config(client_config(endpoint_url))
        super().__init__(
            aws_access_key_id=sandbox.credentials.access_key,
            aws_secret_access_key=sandbox.credentials.secret_key,
            aws_session_token=sandbox.credentials.token,
            region_name=sandbox.region,
            botocore_session=core,
        )
        self.endpoint_url = endpoint_url
        self._clients: dict[str, Any] = {}

    def client(self, service_name: str, **kwargs: Any) -> Any:  # type: ignore[override]
        """A client on the endpoint; plain `client("ec2")` calls share one cached client per service."""
        with self._building:
            if kwargs:
                return super().client(service_name, **{"endpoint_url": self.endpoint_url, **kwargs})
            if service_name not in self._clients:
                self._clients[service_name] = super().client(service_name, endpoint_url=self.endpoint_url)
            return self._clients[service_name]

    def resource(self, service_name: str, **kwargs: Any) -> Any:  # type: ignore[override]
        """A resource on the endpoint."""
        with self._building:
            return super().resource(service_name, **{"endpoint_url": self.endpoint_url, **kwargs})


@dataclass(frozen=True)
class Lane:
    """One moto server a playthrough may reset and replay on, and the Runner that evaluates on it.

    The scenarios act at `endpoint_url`; the evaluations are given `sandbox` (the same server, normally).
    """

    runner: Runner
    endpoint_url: str
    sandbox: SandboxSpec


def play(
    lab: Lab,
    runner: Runner,
    endpoint_url: str,
    sandbox: SandboxSpec,
    *,
    select: Callable[[str], bool] | None = None,
    on_result: Callable[[ScenarioResult], None] | None = None,
) -> list[ScenarioResult]:
    """Play the scenarios of the selected steps (all by default) on one moto server and judge each answer.

    `on_result` is called with each result as soon as it is known (for a live progress line).

    Earlier steps are always solved (their handles are needed); their solve is reported only if it does not
    pass. The moto server at `endpoint_url` is reset along the way: give it to nothing else meanwhile.
    """
    return play_lanes(lab, [Lane(runner, endpoint_url, sandbox)], select=select, on_result=on_result)


def play_lanes(
    lab: Lab,
    lanes: Sequence[Lane],
    *,
    select: Callable[[str], bool] | None = None,
    on_result: Callable[[ScenarioResult], None] | None = None,
    scenarios: Mapping[str, StepScenarios] | None = None,
) -> list[ScenarioResult]:
    """`play` on several moto servers at once: the same results, in the same order, sooner.

    `scenarios` replaces the lab's own (`load_scenarios`), e.g. with generated mistakes (`stepeval mutate`).

    Each mistake and each solve needs a fresh copy of the state before its step (a reset and a replay of the
    earlier solves); those of a step are independent, so each lane (one thread, one server) plays whichever is
    next. A step's scenarios start once the solve before it has answered (its handles are needed); the
    untouched account is evaluated on the server that solve left, before anything resets it. Every server is
    seeded before each action, so a replay creates the same ids on any of them. `on_result` is called in this
    thread, in the order of the results. When this returns, the first lane's server holds what the last solve
    left, as with one server. The servers are reset along the way: give them to nothing else meanwhile.
    """
    if not lanes:
        raise ValueError("play_lanes needs at least one lane")
    scenarios = load_scenarios(lab) if scenarios is None else scenarios
    order = list(lab.steps)
    chosen = [key for key in order if select is None or select(key)]
    if not chosen:
        return []
    needed = order[: order.index(chosen[-1]) + 1]
    missing = [key for key in needed if key not in scenarios]
    if missing:
        raise LabError(
            [
                f"{lab.root / SCENARIO_DIR / (key.replace('.', '_') + '.py')}: missing: step {key} needs a @solve"
                for key in missing
            ]
        )
    players = [_Player(lane) for lane in lanes]
    return _Schedule([scenarios[key] for key in needed], set(chosen), players).run(on_result)


@dataclass(frozen=True)
class _Played:
    """An earlier step's solve, the seed it ran under, and the events it created (a replay must match them)."""

    step: StepScenarios
    seed: int
    events: tuple[Event, ...]


@dataclass(frozen=True)
class _Before:
    """The state before a step: the earlier solves to replay, in order, and the handles they resolved."""

    played: tuple[_Played, ...] = ()
    resolved: Mapping[str, Handle] = field(default_factory=dict)

    def then(self, played: _Played, answer: Answer | None) -> _Before:
        """The state before the next step, once `played` (with this `answer`) is done."""
        resolved = dict(self.resolved)
        if answer is not None:
            resolved.update((handle.name, handle) for handle in answer.resolved)
        return _Before((*self.played, played), resolved)


@dataclass(frozen=True)
class _Task:
    """One scenario to play: where its result goes, its rank among those ready, and the lane it needs (if any)."""

    slot: int
    rank: tuple[int, int, int]
    play: Callable[[_Player], ScenarioResult]
    lane: int | None = None
    solves: tuple[int, _Before] | None = None  # (step index, state before it) for a solve


class _Schedule:
    """Which scenario each lane plays next, and the results in their order (see `play_lanes`).

    A result's slot is fixed up front: per step the untouched account, the mistakes, the solve (a step that is
    not selected has only its solve, reported only if it does not pass). Ready tasks are taken by rank: the
    solves that open the next step first, then by step and order; the last solve last, on the first lane.
    """

    def __init__(self, steps: list[StepScenarios], chosen: set[str], players: list[_Player]) -> None:
        self.steps = steps
        self.chosen = chosen
        self.players = players
        self.first_slot: list[int] = []
        slots = 0
        for step in steps:
            self.first_slot.append(slots)
            slots += 2 + len(step.mistakes) if step.key in chosen else 1
        self.results: list[ScenarioResult | None] = [None] * slots
        self.shown = [True] * slots
        self.ready: list[_Task] = []
        self.inline: list[list[_Task]] = [[] for _ in players]  # what a lane must play before anything else
        self.opening = len(steps) - 1  # solves still to answer that open a step
        self.failure: BaseException | None = None
        self.condition = threading.Condition()

    def run(self, on_result: Callable[[ScenarioResult], None] | None) -> list[ScenarioResult]:
        with self.condition:
            self._open(0, _Before(), 0)
        threads = [
            threading.Thread(target=self._lane, args=(index,), name=f"playthrough-lane-{index}", daemon=True)
            for index in range(len(self.players))
        ]
        for thread in threads:
            thread.start()
        reported: list[ScenarioResult] = []
        done = 0
        try:
            while done < len(self.results):
                with self.condition:
                    while self.failure is None and self.results[done] is None:
                        self.condition.wait()
                    if self.failure is not None:
                        break
                    batch = []
                    while done < len(self.results) and self.results[done] is not None:
                        if self.shown[done]:
                            batch.append(self.results[done])
                        done += 1
                for result in batch:
                    reported.append(result)
                    if on_result is not None:
                        on_result(result)
        except BaseException:
            self._stop(_Aborted("the playthrough was interrupted"))
            raise
        for thread in threads:
            thread.join()
        if self.failure is not None:
            raise self.failure
        return reported

    def _stop(self, failure: BaseException) -> None:
        with self.condition:
            if self.failure is None:
                self.failure = failure
            self.condition.notify_all()

    def _lane(self, index: int) -> None:
        player = self.players[index]
        while (task := self._take(index)) is not None:
            try:
                result = task.play(player)
            except BaseException as exc:  # a server or worker that broke: the caller gets it, as from play()
                self._stop(exc)
                return
            with self.condition:
                self.results[task.slot] = result
                if task.solves is not None:
                    step_index, before = task.solves
                    step = self.steps[step_index]
                    self.shown[task.slot] = step.key in self.chosen or not result.ok
                    if step_index + 1 < len(self.steps):
                        after = before.then(_Played(step, step_index + 1, result.events), result.answer)
                        self._open(step_index + 1, after, index)
                        self.opening -= 1
                self.condition.notify_all()

    def _take(self, index: int) -> _Task | None:
        with self.condition:
            while self.failure is None:
                if self.inline[index]:
                    return self.inline[index].pop(0)
                mine = [task for task in self.ready if task.lane in (None, index)]
                if mine:
                    task = min(mine, key=lambda t: t.rank)
                    self.ready.remove(task)
                    return task
                if self.opening == 0:
                    return None
                self.condition.wait()
            return None

    def _open(self, step_index: int, before: _Before, holder: int) -> None:
        """Make a step's scenarios ready; its untouched account goes to `holder`, whose server holds `before`."""
        step = self.steps[step_index]
        seed = step_index + 1
        slot = self.first_slot[step_index]
        last = step_index == len(self.steps) - 1
        if step.key in self.chosen:
            self.inline[holder].append(_Task(slot, (0, 0, 0), lambda p: p.untouched(step.key, before)))
            for number, scenario in enumerate(step.mistakes, start=1):
                self.ready.append(
                    _Task(slot + number, (1, step_index, number), _mistake_task(step, scenario, seed, before))
                )
            slot += 1 + len(step.mistakes)
        rank = (2, step_index, 0) if last else (0, step_index, 0)
        self.ready.append(
            _Task(slot, rank, lambda p: p.solve(step, seed, before), 0 if last else None, (step_index, before))
        )


def _mistake_task(
    step: StepScenarios, mistake: Scenario, seed: int, before: _Before
) -> Callable[[_Player], ScenarioResult]:
    return lambda player: player.mistake(step, mistake, seed, before)


class _Aborted(Exception):
    """The playthrough stopped before its end (an interrupt, or another lane's failure)."""


class _Player:
    """One lane's side of a playthrough: its server, the session that acts on it and its recorder."""

    def __init__(self, lane: Lane) -> None:
        self.runner = lane.runner
        self.endpoint_url = lane.endpoint_url
        self.sandbox = lane.sandbox
        self.session = ScenarioSession(lane.endpoint_url, lane.sandbox)
        self.recorder = EventRecorder(self.session)
        self._moto_api("reset")

    def untouched(self, key: str, before: _Before) -> ScenarioResult:
        """Evaluate the account as the earlier solves left it, with no events: it must fail."""
        started = time.perf_counter()
        answer = self._evaluate(key, (), before)
        return _judged(key, UNTOUCHED, "negative", "fail", None, answer, (), started)

    def mistake(self, step: StepScenarios, mistake: Scenario, seed: int, before: _Before) -> ScenarioResult:
        """Play a mistake (after the solve, if it says so) on a fresh copy and judge the answer."""
        actions = (step.solve, mistake) if mistake.after_solve else (mistake,)
        return self._play(step, mistake, actions, seed, mistake.expect, mistake.issue, before)

    def solve(self, step: StepScenarios, seed: int, before: _Before) -> ScenarioResult:
        """Play the solve on a fresh copy; it must pass (what it resolved is carried forward by the caller)."""
        return self._play(step, step.solve, (step.solve,), seed, "pass", None, before)

    def _play(
        self,
        step: StepScenarios,
        scenario: Scenario,
        actions: Sequence[Scenario],
        seed: int,
        expected: Literal["pass", "fail"],
        pattern: str | None,
        before: _Before,
    ) -> ScenarioResult:
        started = time.perf_counter()
        kind: Kind = scenario.kind
        try:
            self._fresh_copy(before)
            self._moto_api(f"seed?a={seed}")
            self.recorder.start()
            for action in actions:
                self._act(step, action, f"{action.name} raised", before)
            events = _given_events(scenario, [dict(e) for e in self.recorder.events])
        except _ScenarioBroken as exc:
            events = tuple(Event(**e) for e in self.recorder.events)
            elapsed = _ms(started)
            return ScenarioResult(
                step.key, scenario.name, kind, expected, pattern, "broken", None, False, elapsed, str(exc), events
            )
        answer = self._evaluate(step.key, events, before)
        return _judged(step.key, scenario.name, kind, expected, pattern, answer, events, started)

    def _fresh_copy(self, before: _Before) -> None:
        """Reset the server and replay the earlier solves, each under its seed, checking it recreates its events."""
        self._moto_api("reset")
        for played in before.played:
            self._moto_api(f"seed?a={played.seed}")
            self.recorder.start()
            self._act(played.step, played.step.solve, f"replaying step {played.step.key}'s solve raised", before)
            replayed = tuple(Event(**e) for e in self.recorder.events)
            if replayed != played.events:
                raise _ScenarioBroken(
                    f"replaying step {played.step.key}'s solve created {_ids(replayed)}, not {_ids(played.events)}: "
                    "a solve must do the same every time (no random names, no clock)"
                )

    def _act(self, step: StepScenarios, scenario: Scenario, what: str, before: _Before) -> None:
        handles = {name: handle.id for name, handle in before.resolved.items()}
        try:
            scenario.action(self.session, handles)
        except Exception as exc:
            raise _ScenarioBroken(f"{what}:\n{trimmed_traceback(exc, step.path)}") from exc

    def _evaluate(self, key: str, events: Sequence[Event], before: _Before) -> Answer:
        context = ContextInput(resolved=list(before.resolved.values()), events=list(events))
        return self.runner.evaluate(key, context, self.sandbox)

    def _moto_api(self, path: str) -> None:
        request = urllib.request.Request(f"{self.endpoint_url}/moto-api/{path}", method="POST")
        with urllib.request.urlopen(request, timeout=MOTO_API_TIMEOUT_S):
            pass


def _judged(
    key: str,
    name: str,
    kind: Kind,
    expected: Literal["pass", "fail"],
    pattern: str | None,
    answer: Answer,
    events: tuple[Event, ...],
    started: float,
) -> ScenarioResult:
    issue = answer.failure_context.issue if answer.failure_context else None
    if answer.error is not None:
        ok, detail = False, f"error {answer.error.kind}: {answer.error.detail}"
    elif answer.status != expected:
        ok, detail = False, answer.message
    elif expected == "fail" and pattern and not re.search(pattern, issue or ""):
        ok, detail = False, f"the issue does not match {pattern!r}"
    else:
        ok, detail = True, answer.message
    return ScenarioResult(
        key, name, kind, expected, pattern, answer.status, issue, ok, _ms(started), detail, events, answer
    )


def _given_events(scenario: Scenario, recorded: list[dict[str, str]]) -> tuple[Event, ...]:
    """The events the evaluator is given: as recorded, reversed, or edited by the scenario's function."""
    if scenario.events == "reversed":
        return tuple(Event(**e) for e in reversed(recorded))
    if callable(scenario.events):
        try:
            return tuple(Event(**e) for e in scenario.events(recorded))
        except Exception as exc:
            raise _ScenarioBroken(f"{scenario.name}'s events function failed: {exc}") from exc
    return tuple(Event(**e) for e in recorded)


def _ids(events: Sequence[Event]) -> str:
    return ", ".join(e.id for e in events) or "nothing"


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
