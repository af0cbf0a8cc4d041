"""Mutation runs: which learner mistakes does each evaluator miss? (`stepeval mutate` prints them.)

One playthrough on the same moto lanes as `stepeval test`, of the lab's scenarios and, for each chosen step, the
mutants of its solve (harness.authoring.mutants: one call with one parameter got wrong, or an attribute call left
out): the solve's write calls are recorded as it acts and, once it has passed, its mutants are played as mistakes, each
from the same state before the step as any mistake, through the same Runner. Each mutant is then:

- killed: the step fails (or answers error: reported apart, as the evaluator's bug);
- survived: the step passes although the mutant built something else (the evaluator accepts a mistake);
- equivalent: a survivor the solve marks acceptable (`@equivalent(pattern, reason=...)`);
- invalid: the emulator refused a call (or the solve could not go on), or the mutant passed having built the
  same resources as the solve (only a mutant that passed is fingerprinted: on its copy, once judged).
"""

from __future__ import annotations

import fnmatch
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from botocore.exceptions import BotoCoreError, ClientError

from harness.authoring.fingerprint import Fingerprint, fingerprint, same
from harness.authoring.intercept import Interceptor
from harness.authoring.mutants import Call, Known, Mutant, mutants, strings, subject
from harness.authoring.playthrough import Lane, ScenarioResult, StepScenarios, load_scenarios, play_lanes
from harness.authoring.scenarios import Equivalent, Scenario, equivalents
from harness.authoring.solutions import SolutionError
from harness.core.lab import Lab

MutantOutcome = Literal["killed", "survived", "equivalent", "invalid", "error", "broken"]
SAME = "the mutant built the same resources as the solve"
NOT_YET = "the step answered pending: AWS was still working on a resource, so there is nothing to judge yet"


@dataclass(frozen=True)
class MutantResult:
    """One mutant: what changed, in which call, and what the evaluator made of it."""

    step: str
    id: str
    change: str
    call: str  # the call as sent: "ec2.CreateSubnet({...})", or the omitted call
    outcome: MutantOutcome
    sentence: str  # for people: "02.02 passed with `MapPublicIpOnLaunch` false on subnet 10.0.2.0/24"
    issue: str | None = None
    reason: str | None = None  # why invalid, or why equivalent
    duration_ms: float = 0.0


@dataclass(frozen=True)
class StepScore:
    """How a step's evaluator did against its mutants."""

    step: str
    killed: int = 0
    survived: int = 0
    equivalent: int = 0
    invalid: int = 0
    error: int = 0

    @property
    def score(self) -> float | None:
        """Killed out of the mutants that count (not invalid, not marked equivalent); None when none count."""
        counted = self.killed + self.survived + self.error
        return self.killed / counted if counted else None


@dataclass
class MutationRun:
    """Everything `stepeval mutate` found: the hand-written scenarios' results beside the mutants'."""

    scenarios: list[ScenarioResult]
    mutants: list[MutantResult]
    unsolved: list[str] = field(default_factory=list)  # steps whose solve did not pass: no mutants for them
    stale_marks: list[str] = field(default_factory=list)  # @equivalent marks that matched no mutant
    elapsed_s: float = 0.0

    def steps(self) -> list[StepScore]:
        """The score of each step that had mutants, in lab order."""
        counts: dict[str, dict[str, int]] = {}
        for result in self.mutants:
            tally = counts.setdefault(result.step, {})
            if result.outcome != "broken":
                tally[result.outcome] = tally.get(result.outcome, 0) + 1
        return [StepScore(step, **tally) for step, tally in counts.items()]

    def lab(self) -> StepScore:
        """All steps' mutants together."""
        total = StepScore("lab")
        for score in self.steps():
            total = StepScore(
                "lab",
                *(
                    getattr(total, n) + getattr(score, n)
                    for n in ("killed", "survived", "equivalent", "invalid", "error")
                ),
            )
        return total

    @property
    def survivors(self) -> list[MutantResult]:
        """Mutants the evaluator passed and no `@equivalent` accepts."""
        return [m for m in self.mutants if m.outcome == "survived"]

    @property
    def exit_code(self) -> int:
        """1 when an unmarked survivor remains, an evaluator answered error, a mutant broke or a solve did not pass."""
        bad = self.survivors or self.unsolved or any(m.outcome in ("error", "broken") for m in self.mutants)
        return 1 if bad else 0


class _Notes:
    """What the lanes learn as they play (they write here): each solve's calls and mutants, the types of the
    handles resolved so far, the solve's fingerprint, the mutants' refusals."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.solves: dict[str, tuple[list[Call], dict[str, str]]] = {}
        self.planning: dict[str, threading.Event] = {}  # step -> set once its mutants are planned (or never will be)
        self.planned: dict[str, list[Mutant]] = {}
        self.touched: dict[tuple[str, str], dict[str, str]] = {}  # (step, mutant id) -> the resources compared
        self.resolved: dict[str, str] = {}  # id -> type of every handle the solves answered so far
        self.made: dict[str, str] = {}  # id -> type of everything the solves made so far (a mutant's siblings)
        self.prints: dict[str, Fingerprint] = {}  # step -> what its solve built
        self.mutant_prints: dict[tuple[str, str], Fingerprint] = {}  # (step, mutant id) -> what it built, if passed
        self.refused: dict[tuple[str, str], str] = {}  # (step, mutant id) -> why it is invalid
        self.names: set[tuple[str, str]] = set()  # (step, mutant id)


def run_mutants(
    lab: Lab,
    open_lanes: Callable[[], AbstractContextManager[Sequence[Lane]]],
    *,
    select: Callable[[str], bool] | None = None,
    on_result: Callable[[str, ScenarioResult], None] | None = None,
) -> MutationRun:
    """Play the lab's scenarios and the chosen steps' mutants in one playthrough; `on_result(phase, result)`.

    It is `stepeval test`'s playthrough: each solve's write calls are recorded as it acts, its mutants made and
    what it built fingerprinted; once it has passed, its mutants are played as mistakes of its step, each from a
    copy of the same state before the step (`play_lanes(extra=...)`), on the lanes of `open_lanes`.
    """
    started = time.perf_counter()
    notes = _Notes()
    lab_scenarios = load_scenarios(lab)
    recording = {
        key: replace(s, solve=replace(s.solve, action=_recorder(key, s.solve, notes, select is None or select(key))))
        for key, s in lab_scenarios.items()
    }

    def phased(result: ScenarioResult) -> None:
        if on_result is not None:
            on_result("mutants" if (result.step, result.scenario) in notes.names else "scenarios", result)

    with open_lanes() as lanes:
        played = play_lanes(
            lab,
            lanes,
            select=select,
            scenarios=recording,
            on_result=phased,
            extra=_extra(lab_scenarios, notes),
            then=_passed(notes),
        )
    run = _scored(played, lab_scenarios, notes, select)
    run.elapsed_s = time.perf_counter() - started
    return run


def _scored(
    played: Sequence[ScenarioResult],
    lab_scenarios: Mapping[str, StepScenarios],
    notes: _Notes,
    select: Callable[[str], bool] | None,
) -> MutationRun:
    """The playthrough's results told apart: the scenarios', and each chosen step's mutants judged (none for a
    step whose solve did not pass), with the `@equivalent` marks that matched none of them."""
    scenarios = [r for r in played if (r.step, r.scenario) not in notes.names]
    mutated = {(r.step, r.scenario): r for r in played if (r.step, r.scenario) in notes.names}
    chosen = list(dict.fromkeys(r.step for r in scenarios if select is None or select(r.step)))
    solved = {r.step for r in scenarios if r.scenario == lab_scenarios[r.step].solve.name and r.ok}
    run = MutationRun(scenarios, [], [key for key in chosen if key not in solved])
    for key, step_mutants in notes.planned.items():
        if key in solved and key in chosen:
            marks = equivalents(lab_scenarios[key].solve.action)
            run.mutants += _judged_step(key, step_mutants, mutated, marks, notes)
            run.stale_marks += _stale_marks(key, marks, step_mutants)
    return run


def _judged_step(
    key: str,
    step_mutants: Sequence[Mutant],
    mutated: Mapping[tuple[str, str], ScenarioResult],
    marks: tuple[Equivalent, ...],
    notes: _Notes,
) -> list[MutantResult]:
    """Each of a step's mutants that was played (`mutated`: results by step and mutant id), judged."""
    calls = notes.solves[key][0]
    played = [(mutant, mutated.get((key, mutant.id))) for mutant in step_mutants]
    return [_judge(key, mutant, calls, result, marks, notes) for mutant, result in played if result is not None]


def _stale_marks(key: str, marks: tuple[Equivalent, ...], step_mutants: Sequence[Mutant]) -> list[str]:
    """The step's `@equivalent` marks that match none of its mutants."""
    return [
        f"{key}: @equivalent({mark.pattern!r}) matches no mutant"
        for mark in marks
        if not any(_matches(mark, mutant) for mutant in step_mutants)
    ]


def _recorder(key: str, solve: Scenario, notes: _Notes, chosen: bool) -> Callable[[Any, dict[str, str]], object]:
    """The solve (returning what it returns), noting what it made; for a chosen step, the first complete play of it
    is recorded, its mutants made and what it built (that they touch) fingerprinted, on the copy it acted on."""

    def act(aws: Any, handles: dict[str, str]) -> object:
        interceptor = Interceptor()
        with interceptor.active():
            returned = solve.action(interceptor.session(aws), handles)
        with notes.lock:
            existing = {**notes.made, **notes.resolved}  # what earlier solves made, and the handles
            notes.made.update(interceptor.created)
            if not chosen:
                return returned
            planning = notes.planning.get(key)
            if planning is None:
                notes.planning[key] = threading.Event()
                notes.solves[key] = (interceptor.calls, dict(handles))
                types = {**existing, **interceptor.created}
        if planning is not None:  # another play of it (a mistake after the solve) records: its answer waits
            planning.wait()
            return returned
        try:
            planned = mutants(interceptor.calls, list(handles.values()), existing, interceptor.created)
            touched = {(key, m.id): _touched(m, types) for m in planned}
            prints = fingerprint(aws, {rid: t for each in touched.values() for rid, t in each.items()})
            with notes.lock:
                notes.touched.update(touched)
                notes.prints[key] = prints
                notes.planned[key] = planned
        finally:
            notes.planning[key].set()
        return returned

    act.__name__ = solve.name
    return act


def _extra(lab_scenarios: Mapping[str, StepScenarios], notes: _Notes) -> Callable[[str, ScenarioResult], tuple]:
    """For `play_lanes`: once a solve has answered, the handles it resolved are known by type and, when it passed,
    its mutants are played as its step's mistakes."""

    def extra(key: str, result: ScenarioResult) -> tuple[Scenario, ...]:
        with notes.lock:
            if result.answer is not None:
                notes.resolved.update((h.id, h.type) for h in result.answer.resolved)
            planned = notes.planned.get(key, []) if result.ok else []
            notes.names.update((key, m.id) for m in planned)
        solve = lab_scenarios[key].solve
        return tuple(_mutant_scenario(m, key, solve, notes) for m in planned)

    return extra


def _mutant_scenario(mutant: Mutant, key: str, solve: Scenario, notes: _Notes) -> Scenario:
    """The solve with the mutant's change, played as a mistake expected to fail."""

    def act(aws: Any, handles: dict[str, str]) -> None:
        interceptor = Interceptor(mutant)
        try:
            with interceptor.active():
                solve.action(interceptor.session(aws), handles)
        except Exception as exc:
            with notes.lock:
                notes.refused[key, mutant.id] = _refusal(exc)
            raise

    return Scenario(mutant.id, act, "mistake", "fail")


def _passed(notes: _Notes) -> Callable[[ScenarioResult, Any], None]:
    """For `play_lanes`: what a mutant that passed built (that it touched), fingerprinted on the copy it built it
    on; only those need it (the others are killed, invalid or an error whatever they built)."""

    def then(result: ScenarioResult, session: Any) -> None:
        key = (result.step, result.scenario)
        if result.got == "pass" and key in notes.names:
            prints = fingerprint(session, notes.touched[key])
            with notes.lock:
                notes.mutant_prints[key] = prints

    return then


def _touched(mutant: Mutant, types: Mapping[str, str]) -> dict[str, str]:
    """The resources (of known type) the call made or acts on, in the solve and in the mutant: the ids its response
    holds and its first parameter that names one (`SubnetId` of ModifySubnetAttribute: both subnets when the mutant
    swapped it); the others it names (a VPC to create in) it leaves alone. Names are read as identities
    (`mutants.Known`), never found as substrings."""
    known, service = Known(types), mutant.call.service
    firsts = {_first_named(mutant.call.params, known, service), _first_named(mutant.params or {}, known, service)}
    made = {known.named(value, service) for value in strings(mutant.call.response)}
    return {rid: t for rid, t in types.items() if rid in firsts | made}


def _first_named(params: Mapping[str, Any], known: Known, service: str) -> str | None:
    return next((rid for v in params.values() if (rid := known.named(v, service)) is not None), None)


def _refusal(exc: BaseException) -> str:
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        return f"the emulator refused {exc.operation_name}: {error.get('Code', '?')}: {error.get('Message', '')}"
    if isinstance(exc, BotoCoreError):
        return f"botocore refused the call: {exc}"
    if isinstance(exc, SolutionError):  # it caught the refusal and returned an error, as solutions do
        return f"the solution could not go on: {str(exc).splitlines()[0]}"
    return f"the solve could not go on: {type(exc).__name__}: {exc}"


def _judge(
    key: str,
    mutant: Mutant,
    calls: list[Call],
    result: ScenarioResult,
    marks: tuple[Equivalent, ...],
    notes: _Notes,
) -> MutantResult:
    def judged(
        outcome: MutantOutcome, sentence: str, *, issue: str | None = None, reason: str | None = None
    ) -> MutantResult:
        """The result for this mutant, with what every outcome says: the step, the change, the call, the time."""
        return MutantResult(
            step=key,
            id=mutant.id,
            change=mutant.change,
            call=_shown(mutant),
            outcome=outcome,
            sentence=sentence,
            issue=issue,
            reason=reason,
            duration_ms=result.duration_ms,
        )

    where = subject(mutant.call, calls)
    if result.got == "broken":
        reason = notes.refused.get((key, mutant.id))
        if reason is None:
            return judged("broken", f"{key}: the mutant broke: {result.detail}")
        return judged("invalid", f"{key}: {reason}", reason=reason)
    if result.got == "fail":
        return judged("killed", f"{key} failed: {result.issue}", issue=result.issue)
    if result.got == "error":
        return judged("error", f"{key} answered error: {result.detail}")
    if result.got == "pending":
        return judged("invalid", f"{key}: {NOT_YET}", reason=NOT_YET)
    if same(notes.mutant_prints.get((key, mutant.id), {}), notes.prints.get(key, {})):
        return judged("invalid", f"{key}: {SAME}", reason=SAME)
    sentence = (
        f"{key} passed {mutant.change} on {where}"
        if mutant.params is None
        else (f"{key} passed with {mutant.change} on {where}")
    )
    mark = next((m for m in marks if _matches(m, mutant)), None)
    if mark is not None:
        return judged("equivalent", sentence, reason=mark.reason)
    return judged("survived", sentence)


def _matches(mark: Equivalent, mutant: Mutant) -> bool:
    """The pattern is part of the id as written (brackets and all), or a glob (`*`, `?`) matching part of it."""
    return mark.pattern in mutant.id or fnmatch.fnmatchcase(mutant.id, f"*{mark.pattern}*")


def _shown(mutant: Mutant) -> str:
    call = mutant.call
    params = call.params if mutant.params is None else mutant.params
    text = f"{call.service}.{call.operation}({json.dumps(params, default=str, sort_keys=True)})"
    return f"(omitted) {text}" if mutant.params is None else text
