"""Worker processes on the harness side: started with a scrubbed environment, killed at their deadline.

A blocking `time.sleep(120)` and an endless `await` end the same way: the process is killed and replaced.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.protocol import ChannelClosed, FrameTimeout, read_frame, write_frame

if TYPE_CHECKING:
    from harness.isolation.gateway import Gateway

PRELOAD_ENV = "STEPEVAL_WORKER_PRELOAD"
LOG_LEVEL_ENV = "STEPEVAL_LOG_LEVEL"
KEPT_ENV = (
    "PATH",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "PYTHONPATH",
    "PYTHONHASHSEED",
    "PYTHONDONTWRITEBYTECODE",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    PRELOAD_ENV,
    LOG_LEVEL_ENV,
)
STARTUP_TIMEOUT_S = 30.0


def worker_environment() -> dict[str, str]:
    """No AWS_* variables, config files pointed at /dev/null, instance metadata off, no usable home."""
    env = {key: os.environ[key] for key in KEPT_ENV if key in os.environ}
    env.update(
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
        AWS_EC2_METADATA_DISABLED="true",
        HOME="/nonexistent",
    )
    return env


@dataclass(frozen=True)
class Outcome:
    """What came back from a worker: its reply, or why none came (`timeout` or `crash`)."""

    reply: dict[str, Any] | None
    failure: str | None = None
    detail: str = ""
    elapsed_ms: float = 0.0


class WorkerProcess:
    """One worker process and its two pipes."""

    def __init__(self, preload: tuple[str, ...] = ()) -> None:
        job_read, self._job_write = os.pipe()
        self._reply_read, reply_write = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "harness.worker", str(job_read), str(reply_write), *preload],
            pass_fds=(job_read, reply_write),
            stdin=subprocess.DEVNULL,
            env=worker_environment(),
            start_new_session=True,  # its own process group: whatever a module spawns is killed with it
        )
        os.close(job_read)
        os.close(reply_write)
        self._ready = False

    def wait_ready(self) -> None:
        """Block until the worker has imported everything and said so."""
        if not self._ready:
            reply = read_frame(self._reply_read, time.monotonic() + STARTUP_TIMEOUT_S)
            if reply.get("outcome") != "ready":
                raise ChannelClosed(f"unexpected first frame from worker: {reply}")
            self._ready = True

    def request(self, job: dict[str, Any], timeout_s: float) -> Outcome:
        """Send a job and wait for its reply; on timeout the process is killed."""
        try:
            self.wait_ready()
        except (ChannelClosed, FrameTimeout):
            return Outcome(None, "crash", f"the worker did not start: {self._exit_description()}")
        started = time.monotonic()
        try:
            write_frame(self._job_write, job)
            reply = read_frame(self._reply_read, started + timeout_s)
        except FrameTimeout:
            self.kill()
            return Outcome(
                None, "timeout", f"no answer within {timeout_s:g} s; the worker was stopped", self._ms(started)
            )
        except ChannelClosed:
            return Outcome(None, "crash", f"the worker died: {self._exit_description()}", self._ms(started))
        return Outcome(reply, elapsed_ms=self._ms(started))

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """Stop the process and anything it started, at once, and release its pipes."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for fd in (self._job_write, self._reply_read):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _exit_description(self) -> str:
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "it stopped answering"
        return f"killed by signal {-code}" if code < 0 else f"exit code {code}"

    @staticmethod
    def _ms(started: float) -> float:
        return (time.monotonic() - started) * 1000


class WorkerPool:
    """Up to `size` worker processes; each runs one job at a time; dead or timed-out workers are replaced."""

    def __init__(self, size: int = 1, preload: tuple[str, ...] | None = None, gateway: Gateway | None = None) -> None:
        if preload is None:
            preload = tuple(m for m in os.environ.get(PRELOAD_ENV, "").split(",") if m)
        self.size = size
        self.preload = preload
        self._gateway = gateway
        self._owns_gateway = gateway is None
        self._idle: list[WorkerProcess] = []
        self._started = 0
        self._slots = threading.Semaphore(size)
        self._lock = threading.Lock()
        self.restarts = 0

    @property
    def gateway(self) -> Gateway:
        """The read-only gateway the workers' AWS calls pass (started on first use; imported late: `stepeval run`
        starts its worker before the heavy imports)."""
        with self._lock:
            if self._gateway is None:
                from harness.isolation.gateway import Gateway

                self._gateway = Gateway()
                self._gateway.start()
            return self._gateway

    def start(self, count: int | None = None) -> None:
        """Start workers ahead of time (they start lazily otherwise)."""
        with self._lock:
            while self._started < min(count or self.size, self.size):
                self._idle.append(WorkerProcess(self.preload))
                self._started += 1

    def submit(self, job: dict[str, Any], timeout_s: float) -> Outcome:
        """Run one job on an idle worker (waiting for one if all are busy)."""
        with self._slots:
            worker = self._checkout()
            try:
                outcome = worker.request(job, timeout_s)
            except BaseException:  # interrupted while a module runs (Ctrl-C): the worker must not outlive us
                worker.kill()
                raise
            if outcome.failure is not None or not worker.alive:
                worker.kill()
                with self._lock:
                    self._started -= 1
                    self.restarts += 1
            else:
                with self._lock:
                    self._idle.append(worker)
            return outcome

    def close(self) -> None:
        """Stop every idle worker at once: an idle worker holds nothing worth a graceful exit."""
        with self._lock:
            workers, self._idle = self._idle, []
            self._started = 0
            gateway = self._gateway if self._owns_gateway else None
        for worker in workers:
            worker.kill()
        if gateway is not None:
            gateway.close()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _checkout(self) -> WorkerProcess:
        with self._lock:
            if self._idle:
                return self._idle.pop()
            self._started += 1
        return WorkerProcess(self.preload)
