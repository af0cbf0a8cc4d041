"""`stepeval replay`: the lab's current modules on recorded evaluations, AWS answered from each recording.

The gateway runs as for a live evaluation, but a `Replayer` tap answers every request from the recording by its
operation and canonical parameters (harness/store/recording.py); nothing leaves the machine and no account is
needed. A request the recording does not have is answered with an error and listed: the evaluation is
unjudgeable, never guessed. Verdicts are compared with the recorded ones, per step.
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from collections.abc import Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from harness.core.account import Account, Credentials
from harness.core.contract import Answer, ContextInput
from harness.core.lab import Lab
from harness.sandbox.faults import error_body
from harness.sandbox.operations import service_model
from harness.sandbox.pool import CPUS, WorkerPool
from harness.sandbox.runner import Runner
from harness.sandbox.tap import Canned, Exchange, RawRequest
from harness.store.recording import canonical_body, decode_body, request_key
from harness.store.records import CorruptRecording, RecordStore, StoredRecord

REPLAY_CREDENTIALS = Credentials("stepeval-replay", "stepeval-replay")  # signs nothing: nothing goes upstream
# Named as the account's endpoint when the recording reads consistently: never reached (the tap answers every
# request), it tells the evaluation, as an emulator's does, that a NotFound is final (the kit asks once).
CONSISTENT_RECORDING = "http://stepeval-replay.invalid"
MISSING_CODE = "StepevalReplayMissing"
SUMMARY_CHARS = 300


class Replayer:
    """A gateway tap answering from one recording; each repeated request gets the next recorded answer (the last
    one again when they run out). `missing` lists what the recording does not have.

    `consistent`: every request of the recording was answered one way (each asked once, or asked again and
    answered alike). Asking again then changes nothing, so the kit's retries of a NotFound (about two seconds of
    sleep each) are not made; a recording where a repeat was answered otherwise (a NotFound, then the resource)
    is replayed with them, as it was recorded."""

    wants_body = False

    def __init__(self, exchanges: list[dict[str, Any]]) -> None:
        self._answers: dict[str, deque[Canned]] = defaultdict(deque)
        for exchange in exchanges:
            response = exchange["response"]
            headers = [(str(k), str(v)) for k, v in response["headers"]]
            canned = Canned(int(response["status"]), headers, decode_body(response["body"]))
            self._answers[str(exchange["key"])].append(canned)
        self.consistent = all(len({(c.status, c.body) for c in answers}) == 1 for answers in self._answers.values())
        self.missing: list[str] = []
        self._lock = threading.Lock()

    def answer(self, service: str, region: str, operation: str, request: RawRequest) -> Canned | None:
        key = request_key(service, region, operation, request)
        with self._lock:
            answers = self._answers.get(key)
            if answers:
                return answers.popleft() if len(answers) > 1 else answers[0]
            self.missing.append(describe(service, operation, request))
        body, content_type = error_body(service_model(service).protocol, MISSING_CODE, "not in the recording")
        return Canned(400, [("Content-Type", content_type), ("x-amzn-ErrorType", MISSING_CODE)], body)

    def observe(self, exchange: Exchange) -> None:
        """Replay records nothing."""


def describe(service: str, operation: str, request: RawRequest) -> str:
    """A request as the report lists it: the operation and its parameters, in canonical form."""
    params = canonical_body(request.headers.get("content-type", ""), request.body)
    query = "&".join(f"{k}={v}" for k, v in sorted(request.query_pairs()))
    text = " ".join(
        part for part in (f"{service}:{operation}", request.path if request.path != "/" else "", query, params) if part
    )
    return text[:SUMMARY_CHARS]


def issue_of(answer: dict[str, Any]) -> str | None:
    """What a verdict is about: the failure's issue, or the error's kind."""
    if answer.get("status") == "error":
        return f"error: {(answer.get('error') or {}).get('kind')}"
    return (answer.get("failure_context") or {}).get("issue")


@dataclass(frozen=True)
class Change:
    """One recorded evaluation whose verdict is not what it was."""

    record_id: str
    step: str
    kind: str  # regression (pass -> fail or pending) | fixed (fail -> pass) | status | issue | unjudgeable
    before: str
    after: str
    missing: tuple[str, ...] = ()
    lab_version: str = ""  # the version of the lab that judged it then (the answer's lab_version)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.record_id,
            "step": self.step,
            "kind": self.kind,
            "before": self.before,
            "after": self.after,
            "missing": list(self.missing),
            "lab_version": self.lab_version,
        }


@dataclass
class StepTally:
    replayed: int = 0
    unchanged: int = 0
    regression: int = 0
    fixed: int = 0
    status: int = 0
    issue: int = 0
    unjudgeable: int = 0


@dataclass
class ReplayReport:
    steps: dict[str, StepTally] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    corrupt: list[tuple[str, str]] = field(default_factory=list)  # (id, why)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (id, why): steps the lab no longer has

    @property
    def failed(self) -> bool:
        """The gate: any learner who was right is now told otherwise, or any evaluation that cannot be judged."""
        return any(change.kind in ("regression", "unjudgeable") for change in self.changes)

    def as_dict(self) -> dict[str, Any]:
        return {
            "steps": {key: vars(tally) for key, tally in sorted(self.steps.items())},
            "changes": [change.as_dict() for change in self.changes],
            "corrupt": [{"id": record_id, "detail": why} for record_id, why in self.corrupt],
            "skipped": [{"id": record_id, "detail": why} for record_id, why in self.skipped],
            "failed": self.failed,
        }


def verdict(answer: dict[str, Any]) -> str:
    issue = issue_of(answer)
    return f"{answer.get('status')}" + (f" ({issue})" if issue and answer.get("status") != "pass" else "")


def verdict_fields(answer: Answer) -> dict[str, Any]:
    """What `issue_of` and `verdict` read of an answer, as the stored answer's JSON holds it (not the whole
    answer dumped: its diagnostics are most of it)."""
    return {
        "status": answer.status,
        "failure_context": {"issue": answer.failure_context.issue} if answer.failure_context else None,
        "error": {"kind": answer.error.kind} if answer.error else None,
    }


def compare(record: StoredRecord, before: dict[str, Any], after: Answer, missing: list[str]) -> Change | None:
    """The change, if any, between the recorded answer and the replayed one."""
    now = verdict_fields(after)
    was, shown_before, shown_after = before.get("status"), verdict(before), verdict(now)
    if missing:
        return Change(
            record.id,
            record.step,
            "unjudgeable",
            shown_before,
            shown_after,
            tuple(dict.fromkeys(missing)),
            record.lab_version,
        )
    if was == now["status"]:
        if issue_of(before) == issue_of(now):
            return None
        return Change(record.id, record.step, "issue", shown_before, shown_after, lab_version=record.lab_version)
    if was == "pass" and now["status"] in ("fail", "pending"):  # a learner who was right no longer passes
        kind = "regression"
    elif was == "fail" and now["status"] == "pass":
        kind = "fixed"
    else:
        kind = "status"
    return Change(record.id, record.step, kind, shown_before, shown_after, lab_version=record.lab_version)


def replay_one(runner: Runner, record: StoredRecord) -> tuple[dict[str, Any], Answer, list[str]]:
    """Run the lab's current module on one recording; CorruptRecording when it cannot be read."""
    exchanges = record.exchanges()
    before = record.read_answer()
    try:
        context = ContextInput.model_validate(record.read_context())
        tap = Replayer(exchanges)
    except (ValidationError, KeyError, TypeError, ValueError) as exc:
        raise CorruptRecording(
            record.id, f"cannot be replayed: {type(exc).__name__}: {str(exc).splitlines()[0]}"
        ) from None
    sandbox = Account(REPLAY_CREDENTIALS, record.region, CONSISTENT_RECORDING if tap.consistent else None)
    after = runner.evaluate(record.step, context, sandbox, tap=tap)
    incomplete = record.incomplete()
    if incomplete is not None:  # answered from a recording that lacks calls or bodies: not the evaluation that ran
        return before, after, [*tap.missing, describe_incomplete(incomplete)]
    return before, after, tap.missing


def describe_incomplete(summary: dict[str, Any]) -> str:
    """What a recording lacks, as replay lists it."""
    dropped = ", ".join(f"{name} x{count}" for name, count in dict(summary.get("operations_dropped", {})).items())
    return (
        f"the recording is incomplete: {summary.get('exchanges_dropped', 0)} calls dropped past its cap"
        + (f" ({dropped})" if dropped else "")
        + f", {summary.get('exchanges_without_bodies', 0)} kept without their bodies past its size bound"
    )[:SUMMARY_CHARS]


def replay(
    lab: Lab,
    store: RecordStore,
    *,
    step: str | None = None,
    since: float | None = None,
    workers: int | None = None,
    feeders: int | None = None,
) -> ReplayReport:
    """Every recorded evaluation of `lab` (one step's, those since a time) through its current modules.

    `workers` evaluation processes at once (every core by default); `feeders` threads feed them (twice as many by
    default: while one thread reads a recording or judges an answer, its worker's slot serves another)."""
    workers = workers or CPUS
    feeders = feeders or 2 * workers
    report = ReplayReport()
    records = store.select(lab=lab.spec.project, step=step, since=since)
    changes: list[tuple[int, Change]] = []
    corrupt: list[tuple[int, tuple[str, str]]] = []
    with WorkerPool(workers) as pool:
        runner = Runner(lab, pool)  # before the spares start: they hold the lab and its clients
        pool.start()
        with ThreadPoolExecutor(feeders) as threads:
            for position, record, outcome in outcomes(threads, 2 * feeders, runner, lab, records, report):
                if isinstance(outcome, CorruptRecording):
                    corrupt.append((position, (record.id, str(outcome))))
                    continue
                before, after, missing = outcome
                tally = report.steps.setdefault(record.step, StepTally())
                tally.replayed += 1
                change = compare(record, before, after, missing)
                if change is None:
                    tally.unchanged += 1
                else:
                    setattr(tally, change.kind, getattr(tally, change.kind) + 1)
                    changes.append((position, change))
    report.changes = [change for _, change in sorted(changes, key=lambda pair: pair[0])]  # oldest record first
    report.corrupt = [entry for _, entry in sorted(corrupt, key=lambda pair: pair[0])]
    return report


def outcomes(
    threads: ThreadPoolExecutor,
    limit: int,
    runner: Runner,
    lab: Lab,
    records: Iterable[StoredRecord],
    report: ReplayReport,
) -> Iterable[tuple[int, StoredRecord, Any]]:
    """Records (with their position) and their replay outcomes as each is done, at most `limit` in flight: one
    slow evaluation (a module that runs to its timeout) holds up no other."""
    pending: dict[Future[Any], tuple[int, StoredRecord]] = {}

    def attempt(record: StoredRecord) -> Any:
        try:
            return replay_one(runner, record)
        except CorruptRecording as exc:
            return exc

    def finished() -> Iterable[tuple[int, StoredRecord, Any]]:
        """Those done, once one is."""
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            position, record = pending.pop(future)
            yield position, record, future.result()

    for position, record in enumerate(records):
        if record.step not in lab.steps:
            report.skipped.append((record.id, f"step {record.step} is not in the lab any more"))
            continue
        pending[threads.submit(attempt, record)] = (position, record)
        if len(pending) >= limit:
            yield from finished()
    while pending:
        yield from finished()
