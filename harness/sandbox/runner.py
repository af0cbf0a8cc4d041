"""One step, end to end: context in, a fresh confined process under a deadline, its AWS calls through the
read-only gateway, contract check, one Answer out."""

from __future__ import annotations

import dataclasses
import time

from harness.core.account import Account
from harness.core.contract import (
    Answer,
    ContextInput,
    ContractViolation,
    Diagnostics,
    Operation,
    build_context,
    check_result,
)
from harness.core.lab import Lab, StepSpec
from harness.core.paths import module_root
from harness.sandbox.pool import ProcessOutcome, WorkerPool
from harness.sandbox.tap import Tap

# The process may need this long beyond the step's own limit to start and answer; it is not given to run().
DEADLINE_GRACE_S = 0.5
MAX_LOG_LINES, MAX_LOG_LINE_CHARS = 200, 500  # of the module's logger, kept in the answer's diagnostics


class Runner:
    """Evaluates the steps of one lab on a pool of evaluation processes. Thread-safe."""

    def __init__(self, lab: Lab, pool: WorkerPool) -> None:
        self.lab = lab
        self.pool = pool
        pool.expect(module_root(step.module_path) for step in lab.steps.values())

    def evaluate(
        self,
        step_key: str,
        context: ContextInput,
        sandbox: Account,
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
        token = gateway.open(sandbox, tap)  # the process gets this token, never the credentials
        job = {
            "job": "run",
            "module": str(step.module_path),
            "context": build_context(context, step),
            "region": sandbox.region,
            "emulator": sandbox.endpoint_url is not None,  # its reads are consistent: the kit need not ask twice
            "gateway": {"socket": gateway.socket_path, "token": token},
            "limits": limits.to_message(),
        }
        try:
            outcome = self.pool.submit(job, limit + DEADLINE_GRACE_S)
        finally:
            operations = gateway.finish(token)
        self.pool.remember_operations(operations)
        elapsed_ms = (time.perf_counter() - started) * 1000
        answer = self._answer(step, outcome, limit, elapsed_ms)
        found = answer.diagnostics or Diagnostics()  # the module's checks and log lines
        refused = [f"{op.service}:{op.operation}" for op in operations if not op.allowed]
        if refused:
            detail = (
                f"refused {', '.join(dict.fromkeys(refused))}: evaluation code may only read (the gateway refused it)"
            )
            answer = Answer.failed_to_run(step.key, "read_only", detail, elapsed_ms)
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
            return Answer.failed_to_run(step.key, outcome.failure or "crash", outcome.detail, elapsed_ms)  # type: ignore[arg-type]
        log = log_lines(reply.get("log"))
        if reply.get("outcome") != "returned":
            kind, detail = reply.get("kind", "crash"), reply.get("detail", "")
            return Answer.failed_to_run(step.key, kind, detail, elapsed_ms, log)
        try:
            return check_result(reply["result"], step, elapsed_ms, log)
        except ContractViolation as exc:
            return Answer.failed_to_run(step.key, "contract", str(exc), elapsed_ms, log)

    def check_module(self, step: StepSpec) -> str | None:
        """Import `step`'s module in an evaluation process; the problem as one line, or None when it loads."""
        outcome = self.pool.submit({"job": "load", "module": str(step.module_path)}, step.timeout_s)
        where = f"{step.module_path}: step {step.key}"
        if outcome.reply is None:
            return f"{where}: importing it failed: {outcome.detail}"
        if outcome.reply.get("outcome") != "loaded":
            first_line = outcome.reply.get("detail", "").splitlines()[0]
            return f"{where}: {first_line}"
        return None


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
