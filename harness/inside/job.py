"""The evaluation process's side of any job, without the AWS machinery: say ready, take one job, be confined for
it, answer with one frame. A process only loads modules here (`stepeval check`); `harness.inside.worker` adds running a
step (its session, the line to the gateway, rehearsals).

A template whose pool only loads modules imports this module and the kit, not `harness.inside.worker` (boto3's sessions,
botocore's loaders, http.client: ~130-170 ms of a cold `stepeval check`).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.core.frames import ChannelClosed, read_frame, write_frame
from harness.core.limits import Limits
from harness.core.paths import KIT_MODULE, job_paths
from harness.inside.loader import LoadError, load_step

Handle = Callable[[dict[str, Any]], dict[str, Any]]


class CpuLimitExceeded(BaseException):
    """SIGXCPU arrived: the step's CPU-time limit is reached (a BaseException: `except Exception` cannot keep it)."""


def _on_sigxcpu(signum: int, frame: Any) -> None:
    raise CpuLimitExceeded()


def error(kind: str, detail: str) -> dict[str, Any]:
    """A reply for an evaluation that could not complete."""
    return {"outcome": "error", "kind": kind, "detail": detail}


def limit_hit(exc: BaseException, limits: Limits) -> dict[str, Any] | None:
    """The `memory` / `cpu` / `processes` error a limit's exception means, if it is one."""
    if isinstance(exc, MemoryError):
        return error("memory", f"the step's memory limit ({limits.memory_mib} MiB) was reached")
    if isinstance(exc, CpuLimitExceeded):
        return error("cpu", f"the step's CPU-time limit ({limits.cpu_seconds or 0:g} s) was reached")
    no_process = isinstance(exc, OSError) and exc.errno == errno.EAGAIN
    no_thread = isinstance(exc, RuntimeError) and "can't start new thread" in str(exc)
    if no_process or no_thread:
        return error("processes", f"the step's process limit ({limits.processes} processes and threads) was reached")
    if isinstance(exc, OSError) and exc.errno == errno.EMFILE:
        return error("files", f"the step's open-file limit ({limits.files}) was reached")
    return None


def load(path: Path) -> dict[str, Any]:
    """A `load` job: import the module and check its `run` (`stepeval check`)."""
    try:
        load_step(path)
    except LoadError as exc:
        return error("load", str(exc))
    return {"outcome": "loaded"}


def reply(job: dict[str, Any], run: Handle | None = None) -> dict[str, Any]:
    """The reply to a job: a `load` here, any other by `run` (refused where there is none: a process that only
    loads modules); a limit reached on the way (while importing, while answering) is its error."""
    try:
        if job.get("job") == "load":
            return load(Path(job["module"]))
        if run is None:
            return error(
                "exception", "this evaluation process only loads modules (its pool was made for stepeval check)"
            )
        return run(job)
    except BaseException as exc:
        return limit_hit(exc, Limits.from_message(job.get("limits"))) or error(
            "exception", f"{type(exc).__name__}: {exc}"
        )


def import_kit(modules: list[str]) -> None:
    """In the template: the kit modules the expected labs import (`harness.kit.NAME` only), imported once before
    the fork; an evaluation importing them itself paid 15-45 ms."""
    for module in modules:
        if KIT_MODULE.fullmatch(module) and module not in sys.modules:
            try:
                importlib.import_module(module)
            except ImportError as exc:  # a kit module that is gone: evaluations that need it say so themselves
                logging.getLogger(__name__).debug("kit module %s not imported: %s", module, exc)


def prepare() -> None:
    """A template that only loads modules prepares nothing for running steps (see `harness.inside.worker`)."""


def warm_services(pairs: list[tuple[str, str]], operations: list[tuple[str, str]]) -> None:
    """A template that only loads modules builds no client and rehearses nothing (see `harness.inside.worker`)."""


def answer_one(channel: int, confine: Callable[[list[str], Limits], None], handle: Handle) -> None:
    """Say ready, take one job, confine this process for it, answer, and return (the caller exits)."""
    write_frame(channel, {"outcome": "ready"})
    try:
        job = read_frame(channel)
    except ChannelClosed:
        return
    confine(job_paths(job), Limits.from_message(job.get("limits")))
    signal.signal(signal.SIGXCPU, _on_sigxcpu)
    me = os.getpid()
    answer = handle(job)
    if os.getpid() != me:  # a process the module forked, returning here: only the evaluation process answers
        os._exit(0)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    write_frame(channel, answer)


def serve_one(
    channel: int, confine: Callable[[list[str], Limits], None], gateway_socket: str | None, *, rehearse_job: bool
) -> None:
    """One `load` job (the gateway and rehearsals are for running steps: `harness.inside.worker.serve_one`)."""
    answer_one(channel, confine, reply)
