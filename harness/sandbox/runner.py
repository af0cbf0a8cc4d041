"""One step, end to end: context in, a fresh confined process under a deadline, its AWS calls through the
read-only gateway, contract check, one Answer out."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable
from typing import TypeGuard, get_args

from harness.core.account import Account
from harness.core.contract import (
    Answer,
    ContextInput,
    ContractViolation,
    Diagnostics,
    ErrorKind,
    Operation,
    build_context,
    check_result,
)
from harness.core.lab import Lab, StepSpec
from harness.core.paths import module_root
from harness.inside.loader import located
from harness.sandbox.pool import ProcessOutcome, WorkerPool
from harness.sandbox.tap import Tap

# The process may need this long beyond the step's own limit to start and answer; it is not given to run().
DEADLINE_GRACE_S = 0.5
MAX_LOG_LINES, MAX_LOG_LINE_CHARS = 200, 500  # of the module's logger, kept in the answer's diagnostics
MAX_DETAIL_CHARS = 16 * 1024  # of an error's detail (a trimmed traceback) as the evaluation process reports it
ERROR_KINDS = frozenset(get_args(ErrorKind))


def _is_error_kind(value: object) -> TypeGuard[ErrorKind]:
    """Whether the evaluation process's (untrusted) kind of error is one the contract knows."""
    return value in ERROR_KINDS


class Runner:
    """Evaluates the steps of one lab on a pool of evaluation processes. Thread-safe."""

    def __init__(self, lab: Lab, pool: WorkerPool, *, steps: Iterable[str] | None = None) -> None:
        """`steps`: the only steps it will evaluate (`stepeval run`'s one), so that the pool readies what their modules
        name, not what the whole lab's do (any other step still evaluates, unreadied)."""
        self.lab = lab
        self.pool = pool
        chosen = list(lab.steps.values()) if steps is None else [lab.step(key) for key in steps]
        modules = None if steps is None else [str(step.module_path) for step in chosen]
        pool.expect((module_root(step.module_path) for step in chosen), modules=modules)

    def evaluate(
        self,
        step_key: str,
        context: ContextInput,
        account: Account,
        *,
        timeout_s: float | None = None,
        tap: Tap | None = None,
    ) -> Answer:
        """The Answer for one step; BadInput (raised) only for a step key the lab does not know."""
        step = self.lab.step(step_key)
        started = time.perf_counter()
        limit = timeout_s or step.timeout_s
        limits = step.limits
        if limits.cpu_seconds is None:
            limits = dataclasses.replace(limits, cpu_seconds=limit)
        gateway = self.pool.gateway
        token = gateway.open(account, tap)  # the process gets this token, never the credentials
        job = {
            "job": "run",
            "module": str(step.module_path),
            "context": build_context(context, step),
            "region": account.region,
            "emulator": account.endpoint_url is not None,  # its reads are consistent: the kit need not ask twice
            "gateway": {"socket": gateway.socket_path, "token": token},
            "limits": limits.to_message(),
        }
        try:
            outcome = self.pool.submit(job, limit + DEADLINE_GRACE_S)
        except Exception as exc:  # the pool's own failure: still an answer, with the operations made
            outcome = ProcessOutcome(None, "crash", f"the evaluation could not run: {type(exc).__name__}: {exc}")
        finally:
            operations = gateway.finish(token)
        elapsed_ms = (time.perf_counter() - started) * 1000
        try:
            return self._complete(step, outcome, operations, limit, elapsed_ms)
        except Exception as exc:  # a reply the checks above let through but the answer cannot hold
            detail = f"the evaluation's reply could not make an answer: {type(exc).__name__}"
            answer = Answer.failed_to_run(step.key, "contract", detail, elapsed_ms)
            return answer.model_copy(update={"diagnostics": Diagnostics(operations=operations)})

    def _complete(
        self, step: StepSpec, outcome: ProcessOutcome, operations: list[Operation], limit: float, elapsed_ms: float
    ) -> Answer:
        """The answer from the reply, made `read_only`/`bad_request` by any request the gateway refused, with the
        operations and the captured output in its diagnostics."""
        answer = self._answer(step, outcome, limit, elapsed_ms)
        found = answer.diagnostics or Diagnostics()  # the module's checks and log lines
        refusal = gateway_refusal(operations)
        if refusal is not None:
            answer = Answer.failed_to_run(step.key, refusal[0], refusal[1], elapsed_ms)
            found = Diagnostics(log=found.log)
        answer = with_unreachable_endpoint(answer, operations)
        diagnostics = found.model_copy(
            update={"operations": operations, "output": outcome.output, "output_truncated": outcome.output_truncated}
        )
        return answer.model_copy(update={"diagnostics": diagnostics})

    def _answer(self, step: StepSpec, outcome: ProcessOutcome, limit: float, elapsed_ms: float) -> Answer:
        if outcome.failure == "timeout":
            detail = f"run() did not finish within {limit:g} s; the process was stopped"
            return Answer.failed_to_run(step.key, "timeout", detail, elapsed_ms)
        reply = outcome.reply
        if reply is None:
            kind = outcome.failure if _is_error_kind(outcome.failure) else "crash"
            return Answer.failed_to_run(step.key, kind, outcome.detail, elapsed_ms)
        log = log_lines(reply.get("log"))
        if reply.get("outcome") == "error":
            answered, said = reply.get("kind"), reply.get("detail")
            if not _is_error_kind(answered) or not isinstance(said, str):
                detail = f"the evaluation process answered an error of no known kind ({str(answered)[:40]!r})"
                return Answer.failed_to_run(step.key, "contract", detail, elapsed_ms, log)
            return Answer.failed_to_run(step.key, answered, said[:MAX_DETAIL_CHARS], elapsed_ms, log)
        if reply.get("outcome") != "returned":
            detail = (
                f"the evaluation process answered neither a result nor an error ({str(reply.get('outcome'))[:40]!r})"
            )
            return Answer.failed_to_run(step.key, "contract", detail, elapsed_ms, log)
        try:
            return check_result(reply.get("result"), step, elapsed_ms, log)
        except ContractViolation as exc:
            return Answer.failed_to_run(step.key, "contract", str(exc), elapsed_ms, log)

    def check_module(self, step: StepSpec, *, beside: bool = False) -> str | None:
        """Import `step`'s module in an evaluation process; the problem as one line, or None when it loads.
        `beside`: in a process beside the pool's slots (a reload, while requests are evaluated)."""
        outcome = self.pool.submit({"job": "load", "module": str(step.module_path)}, step.timeout_s, beside=beside)
        where = f"{step.module_path}: step {step.key}"
        if outcome.reply is None:
            return f"{where}: importing it failed: {outcome.detail}"
        if outcome.reply.get("outcome") != "loaded":
            return located(step.module_path, step.key, outcome.reply.get("detail", ""))
        return None


def gateway_refusal(operations: list[Operation]) -> tuple[ErrorKind, str] | None:
    """The evaluation's error when the gateway refused any of its requests, whatever the module did with the
    refusal: `read_only` for a request that is not a read, else `bad_request` (one the gateway would not read)."""
    refused = [op for op in operations if not op.allowed]
    if not refused:
        return None
    writes = [f"{op.service}:{op.operation}" for op in refused if op.refusal == "read_only"]
    if writes:
        detail = f"refused {', '.join(dict.fromkeys(writes))}: evaluation code may only read (the gateway refused it)"
        return "read_only", detail
    return "bad_request", f"the gateway refused a request it would not read: {refused[0].detail}"


def with_unreachable_endpoint(answer: Answer, operations: list[Operation]) -> Answer:
    """An `aws` error whose cause is an endpoint that did not answer says so: the module saw only the gateway's
    502 (botocore reads no message from a HEAD's answer), the gateway's log says which endpoint and why."""
    failed = next((op for op in operations if op.allowed and op.status == 502 and op.detail), None)
    if failed is None or answer.error is None or answer.error.kind != "aws":
        return answer
    error = answer.error.model_copy(update={"detail": f"{failed.operation}: {failed.detail}"})
    return answer.model_copy(update={"error": error})


def log_lines(raw: object) -> list[str]:
    """The module's log lines from a worker's reply, held to their limits whatever the reply holds."""
    if not isinstance(raw, list):
        return []
    return [str(line)[:MAX_LOG_LINE_CHARS] for line in raw[:MAX_LOG_LINES]]
