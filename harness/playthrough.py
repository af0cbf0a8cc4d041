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
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
    """The learner's session on the emulator: every client goes to the endpoint and is built once."""

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
        if kwargs:
            return super().client(service_name, **{"endpoint_url": self.endpoint_url, **kwargs})
        if service_name not in self._clients:
            self._clients[service_name] = super().client(service_name, endpoint_url=self.endpoint_url)
        return self._clients[service_name]

    def resource(self, service_name: str, **kwargs: Any) -> Any:  # type: ignore[override]
        """A resource on the endpoint."""
        return super().resource(service_name, **{"endpoint_url": self.endpoint_url, **kwargs})


def play(
    lab: Lab,
    runner: Runner,
    endpoint_url: str,
    sandbox: SandboxSpec,
    *,
    select: Callable[[str], bool] | None = None,
    on_result: Callable[[ScenarioResult], None] | None = None,
) -> list[ScenarioResult]:
    """Play the scenarios of the selected steps (all by default) and judge each answer.

    `on_result` is called with each result as soon as it is known (for a live progress line).

    Earlier steps are always solved (their handles are needed); their solve is reported only if it does not
    pass. The moto server at `endpoint_url` is reset along the way: give it to nothing else meanwhile.
    """
    scenarios = load_scenarios(lab)
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
    player = _Player(runner, endpoint_url, sandbox)
    results: list[ScenarioResult] = []

    def report(result: ScenarioResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    for seed, key in enumerate(needed, start=1):
        step = scenarios[key]
        if key in chosen:
            report(player.untouched(key))
            for mistake in step.mistakes:
                report(player.mistake(step, mistake, seed))
        solved = player.solve(step, seed)
        if key in chosen or not solved.ok:
            report(solved)
    return results


@dataclass(frozen=True)
class _Played:
    """An earlier step's solve, the seed it ran under, and the events it created (a replay must match them)."""

    step: StepScenarios
    seed: int
    events: tuple[Event, ...]


class _Player:
    """The state of one playthrough: the session, its recorder, the handles resolved, the solves to replay."""

    def __init__(self, runner: Runner, endpoint_url: str, sandbox: SandboxSpec) -> None:
        self.runner = runner
        self.endpoint_url = endpoint_url
        self.sandbox = sandbox
        self.session = ScenarioSession(endpoint_url, sandbox)
        self.recorder = EventRecorder(self.session)
        self.resolved: dict[str, Handle] = {}
        self.played: list[_Played] = []
        self._moto_api("reset")

    def untouched(self, key: str) -> ScenarioResult:
        """Evaluate the account as the earlier solves left it, with no events: it must fail."""
        started = time.perf_counter()
        answer = self._evaluate(key, ())
        return _judged(key, UNTOUCHED, "negative", "fail", None, answer, (), started)

    def mistake(self, step: StepScenarios, mistake: Scenario, seed: int) -> ScenarioResult:
        """Play a mistake (after the solve, if it says so) on a fresh copy and judge the answer."""
        actions = (step.solve, mistake) if mistake.after_solve else (mistake,)
        return self._play(step, mistake, actions, seed, mistake.expect, mistake.issue)

    def solve(self, step: StepScenarios, seed: int) -> ScenarioResult:
        """Play the solve on a fresh copy; it must pass, and what it resolved is carried forward."""
        result = self._play(step, step.solve, (step.solve,), seed, "pass", None)
        self.played.append(_Played(step, seed, result.events))
        if result.answer is not None:
            self.resolved.update((handle.name, handle) for handle in result.answer.resolved)
        return result

    def _play(
        self,
        step: StepScenarios,
        scenario: Scenario,
        actions: Sequence[Scenario],
        seed: int,
        expected: Literal["pass", "fail"],
        pattern: str | None,
    ) -> ScenarioResult:
        started = time.perf_counter()
        kind: Kind = scenario.kind
        try:
            self._fresh_copy()
            self._moto_api(f"seed?a={seed}")
            self.recorder.start()
            for action in actions:
                self._act(step, action, f"{action.name} raised")
            events = _given_events(scenario, [dict(e) for e in self.recorder.events])
        except _ScenarioBroken as exc:
            events = tuple(Event(**e) for e in self.recorder.events)
            elapsed = _ms(started)
            return ScenarioResult(
                step.key, scenario.name, kind, expected, pattern, "broken", None, False, elapsed, str(exc), events
            )
        answer = self._evaluate(step.key, events)
        return _judged(step.key, scenario.name, kind, expected, pattern, answer, events, started)

    def _fresh_copy(self) -> None:
        """Reset the server and replay the earlier solves, each under its seed, checking it recreates its events."""
        self._moto_api("reset")
        for played in self.played:
            self._moto_api(f"seed?a={played.seed}")
            self.recorder.start()
            self._act(played.step, played.step.solve, f"replaying step {played.step.key}'s solve raised")
            replayed = tuple(Event(**e) for e in self.recorder.events)
            if replayed != played.events:
                raise _ScenarioBroken(
                    f"replaying step {played.step.key}'s solve created {_ids(replayed)}, not {_ids(played.events)}: "
                    "a solve must do the same every time (no random names, no clock)"
                )

    def _act(self, step: StepScenarios, scenario: Scenario, what: str) -> None:
        handles = {name: handle.id for name, handle in self.resolved.items()}
        try:
            scenario.action(self.session, handles)
        except Exception as exc:
            raise _ScenarioBroken(f"{what}:\n{trimmed_traceback(exc, step.path)}") from exc

    def _evaluate(self, key: str, events: Sequence[Event]) -> Answer:
        context = ContextInput(resolved=list(self.resolved.values()), events=list(events))
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
