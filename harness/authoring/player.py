"""One lane of a playthrough: a seat of the emulator, the session acting on it, and the player that plays the
schedule's work there (serves the copy, acts, evaluates through the Runner, judges)."""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import boto3
import botocore.session

from harness.authoring.emulator import MotoState, Seat
from harness.authoring.events import EventRecorder
from harness.authoring.output import prints_to_stderr
from harness.authoring.results import UNTOUCHED, Kind, ScenarioResult, elapsed_ms, judged
from harness.authoring.scenario_files import StepScenarios
from harness.authoring.scenarios import Scenario
from harness.authoring.schedule import Work
from harness.authoring.solutions import SolutionError
from harness.authoring.states import StateBefore, StateTemplate
from harness.core.account import Account
from harness.core.contract import Answer, ContextInput, Event, Handle
from harness.inside.loader import trimmed_traceback
from harness.inside.session import client_config, shared_loader
from harness.sandbox.runner import Runner

WAITER_DELAY_S = 0.1
WAITER_ATTEMPTS = 50
"""A waiter on the emulator polls every 0.1 s, 50 times at most: moto answers a resource's end state at once or
within a few reads, and a waiter that cannot succeed (a mutant's resource made under another name, never made)
gives up in 5 s instead of botocore's minutes."""


class ScenarioSession(boto3.Session):
    """The learner's session on the emulator: every client goes to the endpoint and is built once; its waiters poll
    at the emulator's pace (`quick_waiters`).

    A playthrough's lanes each have one, all sharing the service models (one loader), so clients are built
    under a lock shared by every session: a loader is not known to be thread-safe.
    """

    _building = threading.Lock()

    def __init__(self, endpoint_url: str, account: Account) -> None:
        core = botocore.session.get_session()
        core.register_component("data_loader", shared_loader())
        core.set_default_client_config(client_config(endpoint_url))
        super().__init__(
            aws_access_key_id=account.credentials.access_key,
            aws_secret_access_key=account.credentials.secret_key,
            aws_session_token=account.credentials.token,
            region_name=account.region,
            botocore_session=core,
        )
        self.endpoint_url = endpoint_url
        self._clients: dict[str, Any] = {}

    def client(self, service_name: str, **kwargs: Any) -> Any:
        """A client on the endpoint; plain `client("ec2")` calls share one cached client per service."""
        with self._building:
            if kwargs:
                return quick_waiters(super().client(service_name, **{"endpoint_url": self.endpoint_url, **kwargs}))
            if service_name not in self._clients:
                made = super().client(service_name, endpoint_url=self.endpoint_url)
                self._clients[service_name] = quick_waiters(made)
            return self._clients[service_name]

    def resource(self, service_name: str, **kwargs: Any) -> Any:
        """A resource on the endpoint."""
        with self._building:
            resource = super().resource(service_name, **{"endpoint_url": self.endpoint_url, **kwargs})
            quick_waiters(resource.meta.client)
            return resource


def quick_waiters(client: Any) -> Any:
    """`client`, whose waiters poll every WAITER_DELAY_S at most WAITER_ATTEMPTS times (less where the caller's
    WaiterConfig asks for less)."""
    get_waiter = client.get_waiter

    def quick(name: str) -> Any:
        waiter = get_waiter(name)
        wait = waiter.wait

        def bounded(**kwargs: Any) -> None:
            asked = dict(kwargs.pop("WaiterConfig", None) or {})
            config = {
                "Delay": min(float(asked.get("Delay", waiter.config.delay)), WAITER_DELAY_S),
                "MaxAttempts": min(int(asked.get("MaxAttempts", waiter.config.max_attempts)), WAITER_ATTEMPTS),
            }
            wait(WaiterConfig=config, **kwargs)

        waiter.wait = bounded
        return waiter

    client.get_waiter = quick
    return client


@dataclass(frozen=True)
class LaneSession:
    """The session a lane's scenarios act through, on its seat, and the recorder watching it (attached first)."""

    session: ScenarioSession
    recorder: EventRecorder

    @classmethod
    def on(cls, seat: Seat, services: Iterable[str] = ()) -> LaneSession:
        """A session on `seat` with its clients for `services` made now: moto's processes may still be starting
        (a client is made without a request), and the lanes' first scenarios need not make them."""
        session = ScenarioSession(seat.endpoint_url, seat.sandbox())
        made = cls(session, EventRecorder(session))
        for service in sorted(services):
            session.client(service)
        return made


@dataclass(frozen=True)
class Lane:
    """One seat of an `Emulator` (a loopback port where copies of moto serve) and the Runner that evaluates on it.

    The scenarios act on the seat (through `session`, made when the lane starts if not given); the evaluations are
    given `account` (the seat, normally).
    """

    runner: Runner
    seat: Seat
    account: Account
    session: LaneSession | None = field(default=None, compare=False)

    @property
    def endpoint_url(self) -> str:
        """Where the scenarios act."""
        return self.seat.endpoint_url


class ScenarioBroken(Exception):
    """A scenario (or the solve of an earlier step) raised: not the evaluator's fault."""


@dataclass(frozen=True)
class Played:
    """A scenario's result and, for a solve that acted, the moto process holding what it left (before evaluating)
    and the handles it resolved itself (a reference solution's resources; None: the answer's `resolved` count)."""

    result: ScenarioResult
    after: MotoState | None = None
    resolved: tuple[Handle, ...] | None = None


class Player:
    """One lane's side of a playthrough: its seat, the copy serving there, the session that acts on it."""

    def __init__(self, lane: Lane) -> None:
        self.runner = lane.runner
        self.seat = lane.seat
        self.account = lane.account
        acting = lane.session or LaneSession.on(lane.seat)
        self.session = acting.session
        self.recorder = acting.recorder
        self.serving: MotoState | None = None

    def untouched(self, key: str, work: Work, before: StateBefore) -> ScenarioResult:
        """Evaluate the account as the earlier solves left it, with no events: it must fail.

        On the copy the last solve acted on (the seat still serves it), else (`work.draws`: the first step) on a
        copy of the empty accounts.
        """
        started = time.perf_counter()
        if work.draws:
            assert before.template is not None  # the first step starts from the root
            self._serve(before.template, None)
        assert self.serving is not None  # the solve before it was played on this seat
        answer = self._evaluate(key, (), before)
        return judged(key, UNTOUCHED, "negative", "fail", None, answer, (), started)

    def mistake(self, step: StepScenarios, mistake: Scenario, work: Work, before: StateBefore) -> ScenarioResult:
        """Play a mistake (after the solve, if it says so) on a fresh copy and judge the answer."""
        actions = (step.solve, mistake) if mistake.after_solve else (mistake,)
        return self._play(step, mistake, actions, work, mistake.expect, mistake.issue, before).result

    def solve(self, step: StepScenarios, work: Work, before: StateBefore, ahead: set[str] | None) -> Played:
        """Play the solve on the state before its step (`StateTemplate.take`); it must pass. Unless this is the last
        step, that process is then kept as the next step's template (its seat handed over to a copy of it for the
        evaluation), building ahead the backends the next step's copies (`ahead`: services) would build."""
        return self._play(step, step.solve, (step.solve,), work, "pass", None, before, ahead=ahead)

    def _play(
        self,
        step: StepScenarios,
        scenario: Scenario,
        actions: Sequence[Scenario],
        work: Work,
        expected: Literal["pass", "fail"],
        pattern: str | None,
        before: StateBefore,
        *,
        ahead: set[str] | None = None,
    ) -> Played:
        started = time.perf_counter()
        kind: Kind = scenario.kind
        after = None
        try:
            if work.unplayable is not None:
                raise ScenarioBroken(work.unplayable)
            assert before.template is not None
            self._serve(before.template, work.seed, take=work.kind == "solve")
            self.recorder.start()
            returned: object = None
            for action in actions:
                returned = self._act(step, action, f"{action.name} raised", before)
            events = given_events(scenario, [dict(e) for e in self.recorder.events])
        except ScenarioBroken as exc:
            events = tuple(Event(**e) for e in self.recorder.events) if work.unplayable is None else ()
            elapsed = elapsed_ms(started)
            broken = ScenarioResult(
                step.key, scenario.name, kind, expected, pattern, "broken", None, False, elapsed, str(exc), events
            )
            return Played(broken)
        if ahead is not None:
            assert self.serving is not None
            # What the next step starts from is what the solve acted on, before its evaluation: this process, which
            # gives its seat to a copy of itself for the evaluation and serves nothing from now on.
            after, self.serving = self.serving, self.serving.hand_over(self.seat)
            after.prepare(work.seed + 1, ahead)  # while this evaluation runs
        answer = self._evaluate(step.key, events, before)
        handles = returned if isinstance(returned, list) and all(isinstance(h, Handle) for h in returned) else None
        # a reference solution's resources (a @solve returns nothing)
        resolved = tuple(handles) if work.kind == "solve" and handles is not None else None
        return Played(
            judged(step.key, scenario.name, kind, expected, pattern, answer, events, started), after, resolved
        )

    def _serve(self, template: StateTemplate, seed: int | None, *, take: bool = False) -> None:
        """End the copy this seat serves (its connections hung up) and serve a fresh copy of `template` there (or,
        with `take`, the state itself: see `StateTemplate.take`)."""
        if self.serving is not None:
            self.serving.close()
            self.serving = None
        self.serving = template.take(self.seat, seed) if take else template.copy(self.seat, seed)

    def _act(self, step: StepScenarios, scenario: Scenario, what: str, before: StateBefore) -> object:
        """Run the action (what it prints to stderr); what it returns (a solution: the handles it resolved)."""
        handles = {name: handle.id for name, handle in before.resolved.items()}
        try:
            with prints_to_stderr():
                return scenario.action(self.session, handles)
        except SolutionError as exc:
            raise ScenarioBroken(str(exc)) from exc
        except Exception as exc:
            raise ScenarioBroken(f"{what}:\n{trimmed_traceback(exc, _focus(exc, step))}") from exc

    def _evaluate(self, key: str, events: Sequence[Event], before: StateBefore) -> Answer:
        context = ContextInput(resolved=list(before.resolved.values()), events=list(events))
        return self.runner.evaluate(key, context, self.account)


def _focus(exc: BaseException, step: StepScenarios) -> Path:
    """Where a trimmed traceback starts: the first of the step's files it passes through (a mistake's scenario
    file, a solve's), else the file of the step's solve."""
    passed = [frame.filename for frame in traceback.extract_tb(exc.__traceback__)]
    sources = {str(path.resolve()): path for path in (*step.sources, step.path)}
    return next((sources[name] for name in passed if name in sources), step.path)


def given_events(scenario: Scenario, recorded: list[dict[str, str]]) -> tuple[Event, ...]:
    """The events the evaluator is given: as recorded, reversed, or edited by the scenario's function."""
    if scenario.events == "reversed":
        return tuple(Event(**e) for e in reversed(recorded))
    if callable(scenario.events):
        try:
            return tuple(Event(**e) for e in scenario.events(recorded))
        except Exception as exc:
            raise ScenarioBroken(f"{scenario.name}'s events function failed: {exc}") from exc
    return tuple(Event(**e) for e in recorded)
