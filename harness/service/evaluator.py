"""The pipeline both front doors share (the HTTP app and the Lambda handler): verify, validate, reach the
sandbox, run the step on a worker, answer; log one line and count it.

Everything here is synchronous and thread-safe; the HTTP app calls the same steps from its event loop,
adding admission control (429) and a deadline on the wait for a worker.
"""

from __future__ import annotations

import gc
import hashlib
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from harness.core import logs
from harness.core.account import Account
from harness.core.contract import Answer, ContextInput, ErrorKind
from harness.core.lab import Lab, StepSpec
from harness.sandbox.capacity import Capacity, measured_mib, plan
from harness.sandbox.confine import Protections
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import DEADLINE_GRACE_S
from harness.service.assume import AccountAccess, AccountRefused
from harness.service.catalog import LabCatalog, LabVersion
from harness.service.claims import ClaimLoop
from harness.service.metrics import Metrics
from harness.service.models import EvaluationRequest, parse_request
from harness.service.problems import Problem, deadline_problem
from harness.service.records import ServiceStore
from harness.service.settings import ServiceSettings
from harness.service.webhooks import TOLERANCE_S, WebhookVerifier
from harness.store.evaluations import Retention
from harness.store.idempotency import IdempotencyStore
from harness.store.shared_idempotency import FallbackIdempotency

MIN_RUN_S = 0.2  # below this much time left, an evaluation is not started at all (503)
RELOAD_IDS_WINDOW_S = 2 * TOLERANCE_S + 60  # a signature is fresh for TOLERANCE_S either way of the clock
RELOAD_IDS_KEPT = 1000


@dataclass(frozen=True)
class Admitted:
    """A verified, validated request: what to evaluate (the lab version chosen at its arrival), where, and its
    idempotency key and fingerprint."""

    request_id: str
    request: EvaluationRequest
    step: StepSpec
    fingerprint: str
    started: float
    served: LabVersion


@dataclass
class Reply:
    """A front-door-neutral HTTP answer."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


class Evaluator:
    """Owns the labs, the worker pool, sandbox access, the idempotency store and the metrics of one service."""

    def __init__(
        self,
        settings: ServiceSettings,
        *,
        lab: Lab | None = None,
        pool: WorkerPool | None = None,
        access: AccountAccess | None = None,
    ) -> None:
        """`lab`: serve this lab (else `settings.labs`, every lab under it, or `settings.lab`)."""
        self.settings = settings
        self.capacity: Capacity = plan(settings.workers if pool is None else pool.size, settings.queue)
        self.pool = pool or WorkerPool(self.capacity.workers)
        self.catalog = LabCatalog(
            self.pool,
            lab_dir=lab.root if lab is not None else (None if settings.labs else settings.lab),
            labs_dir=None if lab is not None else settings.labs,
            kept=settings.lab_versions_kept,
        )
        self.metrics = Metrics(self.pool, self.catalog)
        self.access = access or AccountAccess(settings, on_assume=self._count_assume)
        self.verifier = WebhookVerifier(settings.webhook_secret.get_secret_value())
        local = IdempotencyStore(
            settings.idempotency_window_s,
            settings.idempotency_max_entries,
            max_bytes=settings.idempotency_max_bytes,
            max_answer_bytes=settings.idempotency_max_answer_bytes,
        )
        self.records: ServiceStore | None = None
        if settings.store_url:
            try:
                self.records = ServiceStore.open(
                    settings.store_url,
                    Retention(settings.store_max_age_days, settings.store_max_evaluations),
                    local=local,
                    running_ttl_s=settings.deadline_s + DEADLINE_GRACE_S + 30,
                )
            except BaseException:  # a store that cannot be reached: nothing of this service is left behind
                self.catalog.close()
                raise
        self.store: IdempotencyStore | FallbackIdempotency = self.records.idempotency if self.records else local
        # the admin reloads' webhook-ids, this instance's own (an operator reloads each instance with one signed
        # request): one sent again while its signature is fresh answers as it did, and reads nothing
        self.reload_ids = IdempotencyStore(RELOAD_IDS_WINDOW_S, RELOAD_IDS_KEPT)
        self.ready = False
        self._stopping = threading.Event()
        self.module_problems: list[str] = []
        self.protections: Protections | None = None
        self.measured_mib: float | None = None  # the evaluation processes' mean PSS at start, where readable

    # -- life cycle -------------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the template and the spare processes, check that every module imports; then the service is ready.

        Which protections hold (`protections`) is said by the caller, which refuses below the minimum set:
        `stepeval serve` at its start, the Lambda handler at its first invocation.
        """
        self.pool.start()
        self.protections = self.pool.protections()
        self.check_own_access()
        versions = self.catalog.versions()
        with ThreadPoolExecutor(len(versions)) as threads:
            for served, problems in zip(versions, threads.map(self.catalog.check_modules, versions), strict=True):
                served.module_problems = problems
        self.module_problems = sorted({problem for served in versions for problem in served.module_problems})
        self.say_short_deadline(versions)
        for problem in self.module_problems:
            logs.log_line(event="module_problem", detail=problem)
        template = self.pool.template_pid()
        self.measured_mib = measured_mib(template) if template is not None else None
        logs.log_line(event="capacity", **self.capacity.describe(), measured_mib_per_evaluation=self.measured_mib)
        gc.freeze()  # what start-up built lives as long as the service: full collections need not walk it again
        self.ready = True

    def say_short_deadline(self, versions: list[LabVersion]) -> None:
        """Logged at start: the steps whose own timeout the request's deadline cuts (they time out where their
        author allowed them longer; a step slower than the deadline times out at every try)."""
        budget = self.settings.deadline_s - DEADLINE_GRACE_S
        cut = sorted(
            {
                f"{v.name}:{s.key} ({s.timeout_s:g} s)"
                for v in versions
                for s in v.lab.steps.values()
                if s.timeout_s > budget
            }
        )
        if cut:
            logs.log_line(
                event="deadline_below_step_timeout", deadline_s=self.settings.deadline_s, steps=cut[:20], count=len(cut)
            )

    def check_own_access(self) -> None:
        """The service's own way to AWS checked now (GetCallerIdentity), said in the log, and watched while it fails
        (harness/service/reachability.py): readiness and the answers' kind follow it."""
        own = self.access.own
        problem = own.check()
        logs.log_line(event="aws_access", endpoint=own.endpoint, ok=problem is None, problem=problem)
        threading.Thread(target=own.watch, args=(self._stopping,), name="stepeval-aws-check", daemon=True).start()

    @property
    def stopped(self) -> bool:
        """Whether `close` was called: the service is stopping and evaluates nothing more."""
        return self._stopping.is_set()

    def close(self) -> None:
        """Its processes stopped, its copies of the labs removed, its store closed (again: nothing more)."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        self.ready = False
        self.pool.close()
        self.catalog.close()
        if self.records is not None:
            self.records.close()

    def reload(self, reason: str) -> dict[str, Any]:
        """Read the lab directories again (harness/service/catalog.py); what changed and what did not load."""
        outcome = self.catalog.reload(reason)
        for lab in self.catalog.labs:
            self.metrics.expect_lab(lab)
        self.metrics.reloads.labels(outcome="problems" if outcome["problems"] else "ok").inc()
        return outcome

    # -- the steps ----------------------------------------------------------------------------------------------

    def check_size(self, size: int) -> None:
        if size > self.settings.max_body_bytes:
            raise Problem(413, "too_large", f"body: larger than {self.settings.max_body_bytes} bytes", field="body")

    def admit(self, body: bytes, content_type: str | None, request_id: str, started: float) -> Admitted:
        """Validate a verified body and choose the lab version that judges it, leased until `release`; Problem
        415/400/422 naming the field otherwise (409: a lab version not held)."""
        chosen: list[LabVersion] = []

        def lab_of(request: EvaluationRequest) -> Lab:
            chosen.append(self.catalog.lease(request.lab, request.lab_version))
            return chosen[0].lab

        try:
            request, step = parse_request(body, content_type, lab_of)
        except BaseException:
            for served in chosen:
                self.catalog.release(served)
            raise
        return Admitted(request_id, request, step, hashlib.sha256(body).hexdigest(), started, chosen[0])

    def release(self, admitted: Admitted) -> None:
        """`admitted` answered (or refused after its admission): its lab version's copy may go."""
        self.catalog.release(admitted.served)

    def reach(self, admitted: Admitted) -> Account | Answer:
        """Temporary credentials for the sandbox, or an `error` answer of kind `sandbox` (then nothing runs)."""
        try:
            return self.access.open(admitted.request.sandbox)
        except AccountRefused as exc:
            return self.sandbox_error(admitted, str(exc), exc.kind)

    def reach_cached(self, admitted: Admitted) -> Account | Answer | None:
        """`reach`, when the credentials are cached (no STS call: safe on the event loop); None otherwise."""
        try:
            return self.access.open_cached(admitted.request.sandbox)
        except AccountRefused as exc:
            return self.sandbox_error(admitted, str(exc), exc.kind)

    def sandbox_error(self, admitted: Admitted, detail: str, kind: ErrorKind = "sandbox") -> Answer:
        elapsed = (time.monotonic() - admitted.started) * 1000
        return Answer.failed_to_run(admitted.step.key, kind, detail, elapsed)

    def run(self, admitted: Admitted, sandbox: Account, deadline: float) -> Answer:
        """The step on a worker, its timeout cut to what is left of the request's deadline."""
        left = deadline - time.monotonic() - DEADLINE_GRACE_S
        limit = min(admitted.step.timeout_s, left)
        if limit < MIN_RUN_S:
            raise deadline_problem("before a worker was free", self.settings.retry_after_s)
        request, served = admitted.request, admitted.served
        context = ContextInput(resolved=request.resolved, events=request.events)
        recorder = self.records.recorder(served.lab, served.version) if self.records else None
        tap = recorder.tap() if recorder else None
        answer: Answer | None = None
        try:
            with self.catalog.using(served):
                answer = served.runner.evaluate(admitted.step.key, context, sandbox, timeout_s=limit, tap=tap)
            total_ms = (time.monotonic() - admitted.started) * 1000
            answer = answer.model_copy(update={"duration_ms": round(total_ms, 2)})
            if limit < admitted.step.timeout_s:
                answer = self._cut_by_deadline(answer, admitted, limit)
            return answer
        finally:  # recorded before it is answered, whatever became of it
            if recorder is not None and tap is not None:
                recorded = answer or Answer.failed_to_run(
                    admitted.step.key, "crash", "the evaluation ended without an answer (the harness failed)"
                )
                recorder.record(admitted.step.key, admitted.request_id, sandbox.region, context, recorded, tap)

    def _cut_by_deadline(self, answer: Answer, admitted: Admitted, limit: float) -> Answer:
        """A timeout the request's deadline made (the step's own timeout is longer) said as such: the operator's
        STEPEVAL_DEADLINE_S, or time spent waiting before the step started, not the step's author."""
        if answer.error is None or answer.error.kind != "timeout":
            return answer
        waited = self.settings.deadline_s - DEADLINE_GRACE_S - limit  # queue and STS, before the step started
        detail = (
            f"{answer.error.detail}: the request's deadline (STEPEVAL_DEADLINE_S, {self.settings.deadline_s:g} s,"
            f" {max(waited, 0):.1f} s of it spent before the step ran) left it {limit:.1f} s of its"
            f" {admitted.step.timeout_s:g} s timeout"
        )
        return answer.model_copy(update={"error": answer.error.model_copy(update={"detail": detail})})

    def finish(self, admitted: Admitted, answer: Answer) -> dict[str, Any]:
        """Count, log and store the answer; the response body."""
        seconds = time.monotonic() - admitted.started
        served = admitted.served
        self.metrics.answered(answer, seconds, served.name)
        logs.log_evaluation(
            request_id=admitted.request_id,
            step=admitted.step.key,
            account_id=admitted.request.sandbox.account_id,
            answer=answer,
            duration_ms=seconds * 1000,
            lab=served.name,
            lab_version=served.version,
        )
        body = {
            **answer.model_dump(mode="json"),
            "lab": served.name,
            "lab_version": served.version,
            "request_id": admitted.request_id,
        }
        self.store.complete(admitted.request_id, body)
        return body

    def replayed(self, admitted: Admitted, body: dict[str, Any]) -> dict[str, Any]:
        self.metrics.replays.inc()
        logs.log_line(
            event="evaluation",
            request_id=admitted.request_id,
            step=admitted.step.key,
            account_id=admitted.request.sandbox.account_id,
            lab=body.get("lab"),
            lab_version=body.get("lab_version"),
            status=body.get("status"),
            error_kind=(body.get("error") or {}).get("kind"),
            duration_ms=round((time.monotonic() - admitted.started) * 1000, 2),
            replayed=True,
        )
        return body

    def claims(self, admitted: Admitted, deadline: float) -> ClaimLoop:
        """The claim loop on `admitted`'s idempotency key, waits bounded by `deadline`."""
        return ClaimLoop(self.store, admitted.request_id, admitted.fingerprint, deadline)

    def refusal(self, problem: Problem, request_id: str | None) -> Reply:
        self.metrics.rejections.labels(code=str(problem.status)).inc()
        logs.log_refusal(request_id=request_id, status=problem.status, code=problem.code, field=problem.field)
        return Reply(problem.status, problem.body(request_id), problem.headers)

    def _count_assume(self, outcome: str) -> None:
        self.metrics.assume.labels(outcome=outcome).inc()

    def _handle_admitted(self, admitted: Admitted, deadline: float) -> Reply:
        claims = self.claims(admitted, deadline)
        for holder in claims.holders():
            claims.wait(holder)
        if claims.stored is not None:
            return Reply(200, self.replayed(admitted, claims.stored))
        with claims.evaluating():
            reached = self.reach(admitted)
            answer = reached if isinstance(reached, Answer) else self.run(admitted, reached, deadline)
        return Reply(200, self.finish(admitted, answer))

    # -- the whole path, synchronously (the Lambda handler) -----------------------------------------------------

    def handle(
        self,
        body: bytes,
        headers: Mapping[str, str],
        *,
        trusted_id: str | None = None,
        budget_s: float | None = None,
    ) -> Reply:
        """One request end to end. `trusted_id`: the caller is already authenticated (a direct Lambda invoke)."""
        started = time.monotonic()
        deadline = started + min(self.settings.deadline_s, budget_s or self.settings.deadline_s)
        request_id = trusted_id
        try:
            self.check_size(len(body))
            if trusted_id is None:
                request_id = self.verifier.verify(body, headers)
            assert request_id is not None
            admitted = self.admit(body, headers.get("content-type"), request_id, started)
            try:
                return self._handle_admitted(admitted, deadline)
            finally:
                self.release(admitted)
        except Problem as problem:
            return self.refusal(problem, request_id)
