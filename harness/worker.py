"""The worker process: runs step modules one at a time, holding no credentials but the evaluation's own.

Started by `harness.pool` as `python -m harness.worker JOB_FD REPLY_FD [PRELOAD ...]` with a scrubbed
environment. It reads job frames, answers each with one reply frame, and exits when the job channel closes.
A reply is `{"outcome": "returned", "result": ...}` or `{"outcome": "error", "kind", "detail"}`.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError, ParamValidationError

from harness.isolation.relay import Relay
from harness.loader import LoadError, StepRun, lib_stamp, load_step, trimmed_traceback
from harness.pool import LOG_LEVEL_ENV
from harness.protocol import ChannelClosed, read_frame, write_frame
from harness.readonly import WriteRefused
from harness.sandbox import SandboxSession, warm_up

STEP_LOGGER_PREFIX = "stepeval.step"
MAX_LOG_LINES = 200
MAX_LOG_LINE_CHARS = 500


class LogLines(logging.Handler):
    """Keeps what a module logs during one evaluation (capped), for the answer's author-only diagnostics."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.lines) < MAX_LOG_LINES:
            self.lines.append(self.format(record)[:MAX_LOG_LINE_CHARS])


class StepLoaderCache:
    """Step modules imported once per worker, re-imported when the file changes."""

    def __init__(self) -> None:
        self._runs: dict[Path, tuple[tuple[int, ...], StepRun]] = {}

    def get(self, path: Path) -> StepRun:
        try:
            stat = path.stat()
        except OSError:
            raise LoadError("no module at this path") from None
        stamp = (stat.st_mtime_ns, stat.st_size, *lib_stamp(path.parent))
        cached = self._runs.get(path)
        if cached is None or cached[0] != stamp:
            cached = (stamp, load_step(path))
            self._runs[path] = cached
        return cached[1]


def error(kind: str, detail: str) -> dict[str, Any]:
    """A reply for an evaluation that could not complete."""
    return {"outcome": "error", "kind": kind, "detail": detail}


def describe_aws_error(exc: BaseException) -> str:
    """`service:Operation: Code: message` for a ClientError; botocore's own text otherwise."""
    if isinstance(exc, ClientError):
        info = exc.response.get("Error", {})
        operation = getattr(exc, "operation_name", "?")
        return f"{operation}: {info.get('Code', '?')}: {info.get('Message', '')}".strip()
    return f"{type(exc).__name__}: {exc}"


class Worker:
    """Executes jobs: `run` (evaluate a step) and `load` (import and check a module, for `stepeval check`)."""

    def __init__(self) -> None:
        self.steps = StepLoaderCache()

    def handle(self, job: dict[str, Any]) -> dict[str, Any]:
        if job.get("job") == "load":
            return self.load(Path(job["module"]))
        return self.run(job)

    def load(self, path: Path) -> dict[str, Any]:
        try:
            self.steps.get(path)
        except LoadError as exc:
            return error("load", str(exc))
        return {"outcome": "loaded"}

    def run(self, job: dict[str, Any]) -> dict[str, Any]:
        """Evaluate one step; the reply carries the module's log lines (`log`) beside its outcome."""
        lines = LogLines()
        logger = logging.getLogger(f"{STEP_LOGGER_PREFIX}.{Path(job['module']).stem}")
        logger.addHandler(lines)
        try:
            return {**self._evaluate(job), "log": lines.lines}
        finally:
            logger.removeHandler(lines)

    def _evaluate(self, job: dict[str, Any]) -> dict[str, Any]:
        path = Path(job["module"])
        try:
            run = self.steps.get(path)
        except LoadError as exc:
            return error("load", f"{path}: {exc}")
        relay = Relay(job["gateway"]["socket"], job["gateway"]["token"])
        try:
            return self._run(run, SandboxSession(relay.url, job["region"]), job["context"], path)
        finally:
            relay.close()

    def _run(self, run: StepRun, session: SandboxSession, context: dict[str, Any], path: Path) -> dict[str, Any]:
        logger = logging.getLogger(f"{STEP_LOGGER_PREFIX}.{path.stem}")
        try:
            result = asyncio.run(run(session, context, logger))
        except WriteRefused as exc:
            return error("read_only", str(exc))
        except ParamValidationError as exc:
            return error("exception", trimmed_traceback(exc, path))
        except (ClientError, BotoCoreError) as exc:
            return error("aws", describe_aws_error(exc))
        except BaseException as exc:
            return error("exception", trimmed_traceback(exc, path))
        if session.guard.refused:
            refused = ", ".join(session.guard.refused)
            return error("read_only", f"refused {refused}: evaluation code may only read (the refusal was caught)")
        try:
            json.dumps(result)
        except (TypeError, ValueError) as exc:
            return error("contract", f"contract rule 'result-json': the result is not JSON-serializable: {exc}")
        return {"outcome": "returned", "result": result}


def main(argv: list[str]) -> int:
    """Serve jobs until the parent closes the channel."""
    job_fd, reply_fd = int(argv[0]), int(argv[1])
    os.dup2(2, 1)  # whatever a module prints goes to stderr; stdout is the caller's, for answers only
    sys.stdout = sys.stderr  # and unbuffered, so nothing is lost when an idle worker is killed
    level = os.environ.get(LOG_LEVEL_ENV, "INFO").upper()
    logging.basicConfig(level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    for module in argv[2:]:
        importlib.import_module(module)
    warm_up()
    worker = Worker()
    write_frame(reply_fd, {"outcome": "ready"})
    while True:
        try:
            job = read_frame(job_fd)
        except ChannelClosed:
            return 0
        write_frame(reply_fd, worker.handle(job))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
