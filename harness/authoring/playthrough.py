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

import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import boto3
import botocore.session

from harness.authoring.emulator import Emulator, MotoState, Seat
from harness.authoring.events import EventRecorder
from harness.authoring.prestart import SCENARIO_DIR, services_named
from harness.authoring.scenarios import SCENARIO_ATTRIBUTE, Scenario
from harness.core.account import Account
from harness.core.contract import Answer, ContextInput, Event, Handle
from harness.core.errors import LabError
from harness.core.lab import Lab
from harness.core.paths import services_named_in
from harness.inside.loader import LoadError, import_step, trimmed_traceback
from harness.inside.session import client_config, shared_loader
from harness.sandbox.runner import Runner

STEM = re.compile(r"[0-9]{2}_[0-9]{2}")
UNTOUCHED = "untouched account"

Kind = Literal["negative", "mistake", "solve"]
Got = Literal["pass", "fail", "error", "broken"]
Extra = Callable[[str, "ScenarioResult"], Sequence["Scenario"]]
Then = Callable[["ScenarioResult", Any], None]


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

    `got` is the answer's status, or `broken` when the scenario (or the solve of an earlier step) raised: then
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
    """A scenario (or the solve of an earlier step) raised: not the evaluator's fault."""


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

    def __init__(self, endpoint_url: str, sandbox: Account) -> None:
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
    given `sandbox` (the seat, normally).
    """

    runner: Runner
    seat: Seat
    sandbox: Account
    session: LaneSession | None = field(default=None, compare=False)

    @property
    def endpoint_url(self) -> str:
        """Where the scenarios act."""
        return self.seat.endpoint_url


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
    root = lanes[0].seat.emulator.root
    if root is None:
        raise ValueError("play_lanes needs a started Emulator (use it as a context manager)")
    players = [_Player(lane) for lane in lanes]
    steps = [scenarios[key] for key in needed]
    named = [services_named_in([lab.step(step.key).module_path, step.path]) for step in steps]
    root.prepare(1, named[0])  # the first step's copies are seeded with 1 (see _Schedule._open)
    return _Schedule(steps, set(chosen), players, named, extra, then).run(root, on_result)


class _StateTemplate:
    """The moto process holding the state before a step, and the copies its step will ask for: up to `spares`
    (one per lane) are forked ahead, serving nothing, by `making`, so that a lane's next copy is ready when it asks
    (a fork costs the template 10-20 ms). The step's solve takes the process itself (`take`), unless `closes` is
    False (the root, which only copies: its solve gets a copy); what is still owed then comes from a keeper forked
    first, closed once the last copy it owes is made."""

    def __init__(self, state: MotoState, copies: int, making: Executor, spares: int, *, closes: bool = True) -> None:
        self.state = state
        self.left = copies  # the solve's included
        self.closes = closes
        self.taken = False
        self._making = making
        self._ahead = spares
        self._spares: list[Future[MotoState]] = []
        self._forked: list[Future[MotoState]] = []  # every spare asked of `state` (a fork must not follow a take)
        self._lock = threading.Lock()
        with self._lock:
            self._top_up()

    def copy(self, seat: Seat, seed: int | None) -> MotoState:
        """A serving copy on `seat`: a spare put on it, else a fork; the last one owed closes the template."""
        with self._lock:
            self.left = max(self.left - 1, 0)
            spare = self._spares.pop(0) if self._spares else None
            if spare is None:
                copied = self.state.fork(seat, seed)  # under the lock: `take` cannot serve the state meanwhile
            self._top_up()
            last = self.closes and self.left == 0
        if spare is not None:
            copied = spare.result()
            copied.serve(seat, seed)
        if last:
            self.state.close()
        return copied

    def take(self, seat: Seat, seed: int | None) -> MotoState:
        """The state itself, serving on `seat`, for the solve (which acts on it and then hands its seat over: the
        same process is the next step's template, so no state is more than one fork from the root); the copies
        still owed are made from a keeper forked from it first, once every fork asked of it is done."""
        if not self.closes:
            return self.copy(seat, seed)
        with self._lock:
            self.left = max(self.left - 1, 0)
            self.taken = True
            taken, asked = self.state, self._forked
            if self.left:
                self.state = taken.fork()
                self._forked = []
                self._top_up()
        for spare in asked:  # copies of the state before the solve acts on it
            spare.result()
        taken.serve(seat, seed)
        return taken

    def settle(self, more: int) -> None:
        """`more` copies are still wanted in place of the one held back for them (closed when none are; spares
        forked beyond what is still owed are closed)."""
        with self._lock:
            self.left = max(self.left + more - 1, 0)
            surplus = self._spares[self.left :]
            del self._spares[self.left :]
            self._top_up()
            last = self.closes and self.left == 0
        for spare in surplus:
            spare.result().close()
        if last:
            self.state.close()

    def _top_up(self) -> None:
        """Fork spares ahead while fewer than `spares` are on the way and more forks are owed than are on the way
        (the solve's copy is no fork when it takes the state)."""
        owed = self.left - int(self.closes and not self.taken)
        while len(self._spares) < min(self._ahead, owed):
            spare = self._making.submit(self.state.fork)
            self._spares.append(spare)
            self._forked.append(spare)


@dataclass(frozen=True)
class _Before:
    """The state before a step: where to copy it from (or why there is none) and the handles resolved so far."""

    template: _StateTemplate | None
    resolved: Mapping[str, Handle] = field(default_factory=dict)
    broken: str | None = None  # an earlier solve raised: there is no state to start from

    def then(self, template: _StateTemplate | None, answer: Answer | None, broken: str | None) -> _Before:
        """The state before the next step, once the solve that left `template` answered `answer`."""
        resolved = dict(self.resolved)
        if answer is not None:
            resolved.update((handle.name, handle) for handle in answer.resolved)
        return _Before(template, resolved, self.broken or broken)


@dataclass(frozen=True)
class _Played:
    """A scenario's result and, for a solve that acted, the moto process holding what it left (before evaluating)."""

    result: ScenarioResult
    after: MotoState | None = None


@dataclass(frozen=True)
class _Task:
    """One scenario to play: where its result goes, its rank among those ready, and the lane it needs (if any)."""

    slot: int
    rank: tuple[int, int, int]
    play: Callable[[_Player], _Played]
    lane: int | None = None
    solves: tuple[int, _Before] | None = None  # (step index, state before it) for a solve


class _Schedule:
    """Which scenario each lane plays next, and the results in their order (see `play_lanes`).

    A result's slot is fixed up front: per step the untouched account, the mistakes, the solve (a step that is
    not selected has only its solve, reported only if it does not pass); extras get theirs after all of those, as
    they come. Ready tasks are taken by rank: the solves that open the next step first, then by step and order;
    the last solve last, on the first lane (without extras).
    """

    def __init__(
        self,
        steps: list[StepScenarios],
        chosen: set[str],
        players: list[_Player],
        named: list[set[str]],
        extra: Extra | None = None,
        then: Then | None = None,
    ) -> None:
        self.steps = steps
        self.chosen = chosen
        self.players = players
        self.named = named  # the services each step's module and scenarios name, for MotoState.prepare
        self.extra = extra
        self.then = then
        self.first_slot: list[int] = []
        slots = 0
        for step in steps:
            self.first_slot.append(slots)
            slots += self._copies(step) + 1 if step.key in chosen else 1
        self.results: list[ScenarioResult | None] = [None] * slots
        self.shown = [True] * slots
        self.ready: list[_Task] = []
        self.inline: list[list[_Task]] = [[] for _ in players]  # what a lane must play before anything else
        self.opening = len(steps) - (extra is None)  # solves still to answer that open a step (or add extras)
        self.failure: BaseException | None = None
        self.condition = threading.Condition()
        self.making = ThreadPoolExecutor(len(players), thread_name_prefix="moto-spares")  # the templates' spares

    def _copies(self, step: StepScenarios) -> int:
        """How many copies of the state before `step` its scenarios need (its mistakes and its solve)."""
        return 1 + len(step.mistakes) if step.key in self.chosen else 1

    def run(self, root: MotoState, on_result: Callable[[ScenarioResult], None] | None) -> list[ScenarioResult]:
        """Play from `root` (the accounts before the first step; its untouched account is a copy of it too)."""
        with self.making:
            first = self.steps[0]
            copies = self._copies(first) + (first.key in self.chosen) + self._held(first)
            with self.condition:
                self._open(0, _Before(_StateTemplate(root, copies, self.making, len(self.players), closes=False)), 0)
            return self._play(on_result)

    def _play(self, on_result: Callable[[ScenarioResult], None] | None) -> list[ScenarioResult]:
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
                played = task.play(player)
                extras = self._extras(task, played.result)
            except BaseException as exc:  # a server or worker that broke: the caller gets it, as from play()
                self._stop(exc)
                return
            with self.condition:
                result = played.result
                self.results[task.slot] = result
                if task.solves is not None:
                    step_index, before = task.solves
                    step = self.steps[step_index]
                    self.shown[task.slot] = step.key in self.chosen or not result.ok
                    if self.extra is not None and step.key in self.chosen:
                        self._add(step_index, before, extras)
                    if step_index + 1 < len(self.steps):
                        following = self.steps[step_index + 1]
                        copies = self._copies(following) + self._held(following)
                        spares = len(self.players)
                        template = _StateTemplate(played.after, copies, self.making, spares) if played.after else None
                        broken = None if played.after else f"step {step.key}'s solve raised:\n{result.detail}"
                        after = before.then(template, result.answer, broken)
                        self._open(step_index + 1, after, index)
                    elif played.after is not None:
                        played.after.close()
                    if step_index + 1 < len(self.steps) or self.extra is not None:
                        self.opening -= 1
                self.condition.notify_all()

    def _held(self, step: StepScenarios) -> int:
        """A copy of the state before `step` held back for its extras (known once its solve has answered)."""
        return int(self.extra is not None and step.key in self.chosen)

    def _extras(self, task: _Task, result: ScenarioResult) -> Sequence[Scenario]:
        """What `extra` gives once a solve has answered `result` (nothing for other scenarios, or without it)."""
        if self.extra is None or task.solves is None:
            return ()
        return self.extra(result.step, result)

    def _add(self, step_index: int, before: _Before, extras: Sequence[Scenario]) -> None:
        """Make a step's extra mistakes ready, each with a slot after all others; settle their copies."""
        step = self.steps[step_index]
        if before.template is not None:
            before.template.settle(len(extras))
        for number, scenario in enumerate(extras, start=len(step.mistakes) + 1):
            self.results.append(None)
            self.shown.append(True)
            task = _mistake_task(step, scenario, step_index + 1, before, self.then)
            self.ready.append(_Task(len(self.results) - 1, (1, step_index, number), task))

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
        """Make a step's scenarios ready; its untouched account goes to `holder`, whose seat serves the last solve."""
        step = self.steps[step_index]
        seed = step_index + 1
        slot = self.first_slot[step_index]
        last = step_index == len(self.steps) - 1
        if step.key in self.chosen:
            self.inline[holder].append(_Task(slot, (0, 0, 0), lambda p: _Played(p.untouched(step.key, before))))
            for number, scenario in enumerate(step.mistakes, start=1):
                self.ready.append(
                    _Task(slot + number, (1, step_index, number), _mistake_task(step, scenario, seed, before))
                )
            slot += 1 + len(step.mistakes)
        kept_last = last and self.extra is None  # with extras, the last solve is one more task, on any lane
        rank = (2, step_index, 0) if kept_last else (0, step_index, 0)
        ahead = None if last else self.named[step_index + 1]
        self.ready.append(
            _Task(
                slot,
                rank,
                lambda p: p.solve(step, seed, before, ahead),
                0 if kept_last else None,
                (step_index, before),
            )
        )


def _mistake_task(
    step: StepScenarios, mistake: Scenario, seed: int, before: _Before, then: Then | None = None
) -> Callable[[_Player], _Played]:
    def play(player: _Player) -> _Played:
        result = player.mistake(step, mistake, seed, before)
        if then is not None:
            then(result, player.session)  # the seat still serves the copy it played on
        return _Played(result)

    return play


class _Aborted(Exception):
    """The playthrough stopped before its end (an interrupt, or another lane's failure)."""


class _Player:
    """One lane's side of a playthrough: its seat, the copy serving there, the session that acts on it."""

    def __init__(self, lane: Lane) -> None:
        self.runner = lane.runner
        self.seat = lane.seat
        self.sandbox = lane.sandbox
        acting = lane.session or LaneSession.on(lane.seat)
        self.session = acting.session
        self.recorder = acting.recorder
        self.serving: MotoState | None = None

    def untouched(self, key: str, before: _Before) -> ScenarioResult:
        """Evaluate the account as the earlier solves left it, with no events: it must fail.

        On the copy the last solve acted on (the seat still serves it), else on a copy of the empty accounts.
        """
        started = time.perf_counter()
        if self.serving is None:
            assert before.template is not None  # the first step starts from the root
            self._serve(before.template, None)
        answer = self._evaluate(key, (), before)
        return _judged(key, UNTOUCHED, "negative", "fail", None, answer, (), started)

    def mistake(self, step: StepScenarios, mistake: Scenario, seed: int, before: _Before) -> ScenarioResult:
        """Play a mistake (after the solve, if it says so) on a fresh copy and judge the answer."""
        actions = (step.solve, mistake) if mistake.after_solve else (mistake,)
        return self._play(step, mistake, actions, seed, mistake.expect, mistake.issue, before).result

    def solve(self, step: StepScenarios, seed: int, before: _Before, ahead: set[str] | None) -> _Played:
        """Play the solve on the state before its step (`_StateTemplate.take`); it must pass. Unless this is the last
        step, that process is then kept as the next step's template (its seat handed over to a copy of it for the
        evaluation), building ahead the backends the next step's copies (`ahead`: services) would build."""
        return self._play(step, step.solve, (step.solve,), seed, "pass", None, before, ahead=ahead)

    def _play(
        self,
        step: StepScenarios,
        scenario: Scenario,
        actions: Sequence[Scenario],
        seed: int,
        expected: Literal["pass", "fail"],
        pattern: str | None,
        before: _Before,
        *,
        ahead: set[str] | None = None,
    ) -> _Played:
        started = time.perf_counter()
        kind: Kind = scenario.kind
        after = None
        try:
            if before.broken is not None:
                raise _ScenarioBroken(before.broken)
            assert before.template is not None
            self._serve(before.template, seed, take=kind == "solve")
            self.recorder.start()
            for action in actions:
                self._act(step, action, f"{action.name} raised", before)
            events = given_events(scenario, [dict(e) for e in self.recorder.events])
        except _ScenarioBroken as exc:
            events = tuple(Event(**e) for e in self.recorder.events) if before.broken is None else ()
            elapsed = _ms(started)
            broken = ScenarioResult(
                step.key, scenario.name, kind, expected, pattern, "broken", None, False, elapsed, str(exc), events
            )
            return _Played(broken)
        if ahead is not None:
            assert self.serving is not None
            # What the next step starts from is what the solve acted on, before its evaluation: this process, which
            # gives its seat to a copy of itself for the evaluation and serves nothing from now on.
            after, self.serving = self.serving, self.serving.hand_over(self.seat)
            after.prepare(seed + 1, ahead)  # while this evaluation runs
        answer = self._evaluate(step.key, events, before)
        return _Played(_judged(step.key, scenario.name, kind, expected, pattern, answer, events, started), after)

    def _serve(self, template: _StateTemplate, seed: int | None, *, take: bool = False) -> None:
        """End the copy this seat serves (its connections hung up) and serve a fresh copy of `template` there (or,
        with `take`, the state itself: see `_StateTemplate.take`)."""
        if self.serving is not None:
            self.serving.close()
            self.serving = None
        self.serving = template.take(self.seat, seed) if take else template.copy(self.seat, seed)

    def _act(self, step: StepScenarios, scenario: Scenario, what: str, before: _Before) -> None:
        handles = {name: handle.id for name, handle in before.resolved.items()}
        try:
            scenario.action(self.session, handles)
        except Exception as exc:
            raise _ScenarioBroken(f"{what}:\n{trimmed_traceback(exc, step.path)}") from exc

    def _evaluate(self, key: str, events: Sequence[Event], before: _Before) -> Answer:
        context = ContextInput(resolved=list(before.resolved.values()), events=list(events))
        return self.runner.evaluate(key, context, self.sandbox)


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


def given_events(scenario: Scenario, recorded: list[dict[str, str]]) -> tuple[Event, ...]:
    """The events the evaluator is given: as recorded, reversed, or edited by the scenario's function."""
    if scenario.events == "reversed":
        return tuple(Event(**e) for e in reversed(recorded))
    if callable(scenario.events):
        try:
            return tuple(Event(**e) for e in scenario.events(recorded))
        except Exception as exc:
            raise _ScenarioBroken(f"{scenario.name}'s events function failed: {exc}") from exc
    return tuple(Event(**e) for e in recorded)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
