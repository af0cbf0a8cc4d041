"""Evaluation processes on the harness side: one fresh, confined process per job, never reused.

A template process (harness/sandbox/template.py: a clean interpreter with boto3 and the kit imported, no
secret) forks them on request; the pool keeps `size + 1` spares forked ahead, so a job does not wait for the fork
and the confinement. Each process answers one job and is killed at its answer or its deadline, with everything
it started. Its stdout and stderr are captured here (capped), never mixed with the caller's output.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.core.frames import HEADER, ChannelClosed, FrameBuffer, FrameRefused, readable, write_frame
from harness.core.limits import Limits, raise_open_files
from harness.core.paths import (
    covered,
    environment_region,
    job_paths,
    module_root,
    new_gateway_directory,
    socket_in,
)
from harness.sandbox import kernel
from harness.sandbox.capacity import CPUS
from harness.sandbox.confine import UID_SPAN, Protections, uid_base
from harness.sandbox.template import ANSWERED, sweep_uid
from harness.sandbox.warming import Warming, lab_names

if TYPE_CHECKING:
    from harness.sandbox.gateway import Gateway

PRELOAD_ENV = "STEPEVAL_WORKER_PRELOAD"
LOG_LEVEL_ENV = "STEPEVAL_LOG_LEVEL"
NO_NAMESPACES_ENV = "STEPEVAL_NO_NAMESPACES"  # "1": run evaluations without namespaces (the degraded path)
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
STATUS_TIMEOUT_S = 10.0
TEMPLATE_END_TIMEOUT_S = 5.0
KEPT_OUTPUT_BYTES = 64 * 1024  # of a module's output, what the answer's diagnostics carry
MALLOC_ARENA_MAX = "1"  # glibc gives each new thread an arena reserving 64 MiB of address space: RLIMIT_AS felt them


def worker_environment() -> dict[str, str]:
    """No AWS_* variables, config files pointed at /dev/null, instance metadata off, no usable home."""
    env = {key: os.environ[key] for key in KEPT_ENV if key in os.environ}
    env.update(
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
        AWS_EC2_METADATA_DISABLED="true",
        HOME="/nonexistent",
        MALLOC_ARENA_MAX=MALLOC_ARENA_MAX,
    )
    return env


@dataclass(frozen=True)
class ProcessOutcome:
    """What came back from an evaluation process: its reply, or why none came (`timeout`, `crash`, or the limit
    reached: `memory`, `cpu`, `processes`, `output`, `answer`), and what it printed."""

    reply: dict[str, Any] | None
    failure: str | None = None
    detail: str = ""
    elapsed_ms: float = 0.0
    output: str = ""
    output_truncated: bool = False


class TemplateProcess:
    """The template process and its control socket (SOCK_SEQPACKET: one record per spawn, with its fds)."""

    def __init__(
        self,
        preload: tuple[str, ...],
        namespaces: bool,
        warm: list[tuple[str, str]],
        *,
        loads_only: bool = False,
        huge_pages: bool = True,
    ) -> None:
        """`warm`: (service, region) clients to build while it starts (and probes the machine); `loads_only`: its
        processes only import modules (see `WorkerPool`); `huge_pages`: it maps its memory by huge pages before its
        first fork (`hugepages.Collapsing`: worth it for a template that forks many). The calling process becomes
        non-dumpable first: no process of its uid (an evaluation's, where they share it) may read its memory or its
        environment."""
        kernel.prctl(kernel.PR_SET_DUMPABLE, 0)
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        flags = [] if namespaces else ["--no-namespaces"]
        flags += ["--loads-only"] if loads_only else []
        flags += [] if huge_pages else ["--small-pages"]
        flags += [f"--warm={service}:{region}" for service, region in warm]
        with theirs:
            self.process = subprocess.Popen(
                # -P: not the working directory first on its path (`-m` would put it there): a `harness` found there
                # (another checkout, a learner's repository) is never what the template imports
                [sys.executable, "-P", "-m", "harness.sandbox.template", *flags, str(theirs.fileno()), *preload],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                env=worker_environment(),
                start_new_session=True,  # no terminal signal reaches it; the pool stops it
            )
        self._protections: Protections | None = None
        self._lock = threading.Lock()
        self._asked = False  # whether it was ever asked to fork: until then it has nothing to end

    def spawn(self, request: dict[str, Any], fds: list[int]) -> None:
        """Ask for one evaluation process (forked when the template gets to it)."""
        with self._lock:
            self._asked = True
            socket.send_fds(self.control, [json.dumps(request).encode()], fds)

    def protections(self, timeout_s: float = STARTUP_TIMEOUT_S) -> Protections:
        """What confines evaluations here, as the template found it at start (waits for its start)."""
        with self._lock:
            if self._protections is None:
                self.control.settimeout(timeout_s)
                try:
                    data = self.control.recv(64 * 1024)
                except TimeoutError:
                    raise ChannelClosed("the template did not start") from None
                except OSError as exc:
                    raise ChannelClosed(f"the template failed: {exc}") from None
                finally:
                    self.control.settimeout(None)
                if not data:
                    raise ChannelClosed(f"the template exited (code {self.process.poll()})")
                found = Protections.from_message(json.loads(data)["protections"])
                harness_non_dumpable = kernel.prctl_get(kernel.PR_GET_DUMPABLE) == 0
                self._protections = dataclasses.replace(found, non_dumpable=found.non_dumpable and harness_non_dumpable)
            return self._protections

    def close(self) -> None:
        """Closing its control socket tells the template to kill what it forked (their process groups, where no
        PID namespace holds them) and end; killed only if it does not end soon, or at once if it forked nothing."""
        self.control.close()
        try:
            self.process.wait(timeout=TEMPLATE_END_TIMEOUT_S if self._asked else 0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class EvaluationProcess:
    """The parent's ends of one evaluation process: its job channel, its output, its lifeline, its status.

    Each fd is owned by one file object here and closed once, by `close()`; `kill()` (closing the lifeline, so
    that the template kills the process and its namespace) may be called any number of times, from any thread.
    """

    def __init__(self, template: TemplateProcess, uid: int | None, preparation: dict[str, Any]) -> None:
        self.uid = uid
        self.template = template  # which forked it: a spare dies with its template
        self.ahead: list[str] = list(preparation.get("ahead") or [])  # what its root holds for a job
        self.channel, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        output_r, output_w = os.pipe()
        lifeline_r, lifeline_w = os.pipe()
        status_r, status_w = os.pipe()
        self._output = io.FileIO(output_r, "rb")
        self._lifeline = io.FileIO(lifeline_w, "wb")
        self._status = io.FileIO(status_r, "rb")
        try:
            fds = [theirs.fileno(), output_w, lifeline_r, status_w]
            template.spawn({"uid": uid, **preparation}, fds)
        except OSError:  # refused, or no template: ours go too
            for ours in (self.channel, self._output, self._lifeline, self._status):
                ours.close()
            raise
        finally:
            theirs.close()
            for fd in (output_w, lifeline_r, status_w):
                os.close(fd)
        self._ready = False
        self._lock = threading.Lock()
        self._report: dict[str, Any] | None = None

    def kill(self, answered: bool = False) -> None:
        """End the evaluation and everything it started (idempotent); `answered`: its reply is in, so the template
        need not count what it left running to explain its end."""
        with self._lock:
            if answered and not self._lifeline.closed:
                with contextlib.suppress(OSError):
                    self._lifeline.write(ANSWERED)
            self._lifeline.close()

    def close(self) -> None:
        """Kill, then release every fd (idempotent)."""
        self.kill()
        with self._lock:
            self.channel.close()
            self._output.close()
            self._status.close()

    def status(self, timeout_s: float = STATUS_TIMEOUT_S) -> dict[str, Any]:
        """How the process ended (exit, killed, cpu_s, tasks, at_task_limit), as the template reported it; {} if it
        did not."""
        if self._report is None:
            report: dict[str, Any] = {}
            with contextlib.suppress(OSError, ValueError):
                if readable([self._status], timeout_s):
                    report = json.loads(self._status.read(4096) or b"{}")
            self._report = report
        return self._report

    def wait_ready(self, deadline: float) -> None:
        if self._ready:
            return
        frame = self._read_frame(deadline)
        if frame.get("outcome") != "ready":
            raise ChannelClosed(f"unexpected first frame: {frame}")
        self._ready = True

    def _read_frame(self, deadline: float) -> dict[str, Any]:
        buffer = FrameBuffer()
        while buffer.message is None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not readable([self.channel], wait):
                raise TimeoutError()
            chunk = self.channel.recv(1 << 16)
            if not chunk:
                raise ChannelClosed("the evaluation process exited")
            buffer.feed(chunk)
        return buffer.message

    def run(self, job: dict[str, Any], timeout_s: float, limits: Limits) -> ProcessOutcome:
        """Send the job; read its reply and its output together until the reply, the deadline or a limit."""
        started = time.monotonic()
        try:
            self.wait_ready(started + STARTUP_TIMEOUT_S)
        except (ChannelClosed, TimeoutError) as exc:
            self.kill()
            return ProcessOutcome(None, "crash", f"the evaluation process did not start: {exc or 'no answer'}")
        started = time.monotonic()
        capture = OutputCapture(limits.output_bytes)
        try:
            write_frame(self.channel.fileno(), job)
            reply = self._answer(started + timeout_s, capture, limits.answer_bytes)
        except TimeoutError:
            return self._ended(started, capture, "timeout", f"no answer within {timeout_s:g} s", limits)
        except OutputExceeded:
            detail = f"it wrote more than the step's output limit ({limits.output_kib} KiB) on stdout/stderr"
            return self._ended(started, capture, "output", detail, limits)
        except AnswerExceeded:
            detail = f"its answer was larger than the step's answer limit ({limits.answer_kib} KiB)"
            return self._ended(started, capture, "answer", detail, limits)
        except FrameRefused as exc:  # a reply the protocol does not send (a module may write the channel)
            return self._ended(started, capture, "contract", f"a reply the harness does not read: {exc}", limits)
        except ChannelClosed as exc:
            return self._ended(started, capture, "crash", str(exc), limits)
        self.kill(answered=True)
        capture.drain(self._output)
        return ProcessOutcome(reply, elapsed_ms=_ms(started), output=capture.text, output_truncated=capture.truncated)

    def _answer(self, deadline: float, capture: OutputCapture, limit: int) -> dict[str, Any]:
        buffer = FrameBuffer()
        received = 0
        watched: list[Any] = [self.channel, self._output]
        while buffer.message is None:
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise TimeoutError()
            ready = readable(watched, wait)
            if not ready:
                raise TimeoutError()
            if self._output in ready and not capture.read(self._output):
                watched.remove(self._output)
            if self.channel in ready:
                chunk = self.channel.recv(1 << 16)
                if not chunk:
                    capture.drain(self._output)
                    raise ChannelClosed("it exited without answering")
                received += len(chunk)
                if received > limit + HEADER.size:
                    raise AnswerExceeded()
                buffer.feed(chunk)
        return buffer.message

    def _ended(
        self, started: float, capture: OutputCapture, failure: str, detail: str, limits: Limits
    ) -> ProcessOutcome:
        """No reply: kill, learn how it ended from the template, and name the limit it reached, if any."""
        self.kill()
        report = self.status()
        failure, detail = classify(failure, detail, report, limits)
        return ProcessOutcome(
            None, failure, detail, _ms(started), output=capture.text, output_truncated=capture.truncated
        )


def classify(failure: str, detail: str, report: dict[str, Any], limits: Limits) -> tuple[str, str]:
    """Tell a limit reached from a timeout or a crash, from the template's report of the process's end."""
    code = report.get("exit")
    cpu_s = report.get("cpu_s") or 0.0
    tasks = report.get("tasks") or 0
    if failure in ("output", "answer"):
        return failure, detail
    cpu_limit = limits.cpu_seconds
    over_cpu = cpu_limit is not None and cpu_s >= cpu_limit
    if code == -signal.SIGXCPU or (code == -signal.SIGKILL and over_cpu):  # RLIMIT_CPU's hard limit is a SIGKILL
        return "cpu", f"the step's CPU-time limit ({cpu_limit:g} s) was reached"
    if tasks >= limits.processes or report.get("at_task_limit"):
        return "processes", f"the step's process limit ({limits.processes}) was reached ({tasks} running)"
    if failure == "crash" and code is not None:
        how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        return failure, f"{detail} ({how})"
    return failure, detail


class OutputExceeded(Exception):
    """The module wrote more than its output limit."""


class AnswerExceeded(Exception):
    """The evaluation's reply is larger than its answer limit."""


class SpawnRefused(Exception):
    """No spare, and the kernel refused to pass a new one's descriptors to the template, which still runs (its uid's
    descriptors in flight past the harness's RLIMIT_NOFILE: ETOOMANYREFS): not the evaluation's doing."""


def template_gone(template: TemplateProcess, error: OSError) -> bool:
    """Whether a spawn request that failed with `error` means the template is gone: it has exited, or its end of
    the control socket is closed (it is exiting); any other failure (ETOOMANYREFS, ENOBUFS...) refused this request
    only."""
    return template.process.poll() is not None or isinstance(error, ConnectionError)


class OutputCapture:
    """A module's stdout and stderr: counted in full, kept up to KEPT_OUTPUT_BYTES, over `limit`: OutputExceeded."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._kept = bytearray()

    def read(self, pipe: io.FileIO) -> bool:
        """Read what is there; False at EOF."""
        chunk = pipe.read(1 << 16)
        if not chunk:
            return False
        self.total += len(chunk)
        if len(self._kept) < KEPT_OUTPUT_BYTES:
            self._kept += chunk[: KEPT_OUTPUT_BYTES - len(self._kept)]
        if self.total > self.limit:
            raise OutputExceeded()
        return True

    def drain(self, pipe: io.FileIO) -> None:
        """What is already in the pipe (written before the answer), without waiting for more."""
        with contextlib.suppress(OutputExceeded, OSError, ValueError):
            while readable([pipe], 0) and self.read(pipe):
                pass

    @property
    def text(self) -> str:
        return self._kept.decode("utf-8", errors="replace")

    @property
    def truncated(self) -> bool:
        return self.total > len(self._kept)


_uids_in_use: dict[int, int] = {}  # uid -> its host-wide claim (a socket's descriptor)
_uids_lock = threading.Lock()
UID_CLAIM = "stepeval-uid-{}"  # an abstract unix socket name: bound by one process on the host at a time


def _claim(uid: int) -> int | None:
    """Claim `uid` host-wide (another harness process on this host may run evaluations too); None if taken. The
    kernel drops the claim with the socket: at `give_back`, or when this process dies (a bare descriptor, so that
    a claim held to the end is not reported as a socket left unclosed)."""
    claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if not sys.platform.startswith("linux"):
        return claim.detach()  # no abstract socket names (and no uid switching) there: nothing to claim
    try:
        claim.bind("\0" + UID_CLAIM.format(uid))
    except OSError:
        claim.close()
        return None
    return claim.detach()


class UidPool:
    """Unprivileged uids, one per live evaluation process, back in the pool once its namespace is gone.

    At most `count` at once for this pool, and never one that another pool, or another harness process on this
    host, holds (each uid is claimed host-wide); the range starts at `uid_base()` (STEPEVAL_UID_BASE).
    """

    def __init__(self, count: int) -> None:
        self._count = count
        self._mine: set[int] = set()

    def take(self) -> int | None:
        with _uids_lock:
            if len(self._mine) >= self._count:
                return None
            base = uid_base()
            for uid in range(base, base + UID_SPAN):
                if uid not in _uids_in_use and (claim := _claim(uid)) is not None:
                    _uids_in_use[uid] = claim
                    self._mine.add(uid)
                    return uid
            return None

    def give_back(self, uid: int) -> None:
        with _uids_lock:
            claim = _uids_in_use.pop(uid, None)
            if claim is not None:
                os.close(claim)
            self._mine.discard(uid)


@dataclass
class _Reaper:
    """One thread that waits for the template to report on finished processes, then frees their uid (after killing
    whatever still runs as it, when the template could not report)."""

    done: Any  # callable(process)
    jobs: queue.SimpleQueue = field(default_factory=queue.SimpleQueue)

    def __post_init__(self) -> None:
        threading.Thread(target=self._loop, name="stepeval-reaper", daemon=True).start()

    def reap(self, process: EvaluationProcess) -> None:
        self.jobs.put(process)

    def _loop(self) -> None:
        while True:
            process = self.jobs.get()
            if not process.status() and process.uid is not None:
                # No report: the template is gone, and with it whoever would kill what is left of this evaluation
                # (a module may clear its own parent-death signal): everything running as its uid goes now.
                sweep_uid(process.uid)
            process.close()
            self.done(process)


class WorkerPool:
    """Runs jobs, at most `size` at once, each in a fresh evaluation process; keeps `size + 1` spares ready."""

    def __init__(
        self,
        size: int = 1,
        preload: tuple[str, ...] | None = None,
        *,
        namespaces: bool | None = None,
        loads_only: bool = False,
        rehearse_jobs: bool = True,
        one_evaluation: bool = False,
    ) -> None:
        """`loads_only`: the jobs only import modules (`stepeval check`): the template imports the kit and
        `harness.inside.job`, not boto3's sessions, builds no client and rehearses nothing. `rehearse_jobs`: whether a
        spare rehearses its job when there is CPU to spare (see `_preparation`); a playthrough says no: its lanes
        and moto take all the CPU there is, which the pool does not see, and nobody waits on one evaluation.
        `one_evaluation`: the pool runs one evaluation in its life (`stepeval run`), so its gateway does not read the
        labs' models whole ahead (`Gateway.prepare`): that hides what one evaluation derived from the next, and there
        is none (~0.2 s of CPU for EC2's model, beside the template's start on the same cores); and it keeps one
        spare, not refilled once its job is done (each spare costs a fork, a root and its rehearsals)."""
        raise_open_files()  # before the template starts: no module's descriptors in flight reach the pool's limit
        if preload is None:
            preload = tuple(m for m in os.environ.get(PRELOAD_ENV, "").split(",") if m)
        if namespaces is None:
            namespaces = os.environ.get(NO_NAMESPACES_ENV, "") not in ("1", "true", "yes")
        self.size = size
        self.preload = preload
        self.namespaces = namespaces
        self.loads_only = loads_only
        self.rehearse_jobs = rehearse_jobs and not loads_only
        self.one_evaluation = one_evaluation
        self._gateway: Gateway | None = None
        self._gateway_directory: str | None = None  # made before the gateway: spares bind it ahead
        self._held: list[str] = []  # directories every spare's root holds, whatever the labs expected
        self.restarts = 0  # evaluations that ended without an answer (timeout, crash, a limit)
        self._template: TemplateProcess | None = None
        self._refused: OSError | None = None  # why the last spawn request was refused, the template running still
        self._spares: list[EvaluationProcess] = []
        # ready ahead: one more than can run, so back-to-back jobs never wait for a fork (one job: none come after)
        self.spares = 1 if one_evaluation else size + 1
        self._uids = UidPool(3 * size + 4)  # running (and one beside) + spares + dying
        self._slots = threading.Semaphore(size)
        self._beside = threading.Semaphore(1)  # a job beside the `size` slots: a reload's import checks
        self._cond = threading.Condition()
        self._reaper = _Reaper(self._reaped)
        self._closed = False
        self._warming = Warming()  # what spares' roots hold and what the template readies them with
        self._named_services: set[str] = set()  # every service the expected labs' files name (the gateway shares)
        self._running = 0  # jobs being run now (a spare rehearses its job only while fewer run than there are CPUs)

    # -- life cycle ----------------------------------------------------------------------------------------------

    @property
    def gateway(self) -> Gateway:
        """The read-only gateway the evaluations' AWS calls pass (started on first use; imported late: `stepeval
        run` starts its template before the heavy imports)."""
        with self._cond:
            if self._gateway is None:
                from harness.sandbox.gateway import Gateway

                self._gateway = Gateway(self._directory_for_gateway())
                self._gateway.start()
                self._gateway.prepare(self._named_services, whole=not self.one_evaluation)
            return self._gateway

    def gateway_shared(self) -> dict[str, int]:
        """What the gateway's evaluations share of what it fills lazily, counted (`Gateway.shared_state`); nothing
        before it is started."""
        with self._cond:
            gateway = self._gateway
        return gateway.shared_state() if gateway is not None else {}

    def _directory_for_gateway(self) -> str:
        """The gateway's directory (readable by any uid, holding only its socket), made on first need."""
        if self._gateway_directory is None:
            self._gateway_directory = new_gateway_directory()
        return self._gateway_directory

    def expect(
        self, lab_directories: Iterable[str], region: str | None = None, *, modules: Iterable[str] | None = None
    ) -> None:
        """The labs' `evaluation/` directories jobs will need: spares forked from now on have them in their root,
        so that a job finds its process ready (one that lacks them is replaced at the job); the kit modules their
        modules import, imported, and (unless the pool only loads modules: `stepeval check`) the clients for the
        services they and those kit modules name, in `region` (the environment's default region if not given),
        built: by the template, once, not by every evaluation. `modules`: the only step modules jobs will run (a
        command that runs one step warms what that step names, not its whole lab)."""
        only = None if modules is None else list(modules)
        with self._cond:
            labs = [  # each once: a Runner names its lab's directory once per step
                lab_names(
                    directory,
                    services=not self.loads_only,
                    modules=None if only is None else [path for path in only if module_root(path) == directory],
                )
                for directory in dict.fromkeys(lab_directories)
            ]
            self._warming.expect(labs, region or environment_region())
            named = set().union(*(lab.services for lab in labs)) - self._named_services
            self._named_services |= named
            if self._gateway is not None and named:
                self._gateway.prepare(named, whole=not self.one_evaluation)  # shared: harness/sandbox/models.py

    def hold(self, directory: str) -> None:
        """Every spare forked from now on holds `directory` in its root (the service's copies of every lab it
        serves: one directory however many labs, where `expect` holds the most recent few)."""
        with self._cond:
            if directory not in self._held:
                self._held.append(directory)

    def start(self, count: int | None = None) -> None:
        """Start the template and fork spares ahead of time (without waiting for them)."""
        with self._cond:
            self._closed = False
            self._refill(min(count or self.spares, self.spares))

    def protections(self) -> Protections:
        """Which layers confine this pool's evaluations (starts the template if needed, waits for it)."""
        with self._cond:
            template = self._ensure_template()
        return template.protections()

    def template_pid(self) -> int | None:
        """The template's process id, while it runs (what `capacity.measured_mib` reads the children of)."""
        with self._cond:
            template = self._template
        return template.process.pid if template is not None and template.process.poll() is None else None

    def warn_if_degraded(self) -> None:
        """Say once per process, on stderr, which protections that matter here are off (if any): `stepeval test` and
        `run`, where an evaluation runs; never after `hush_notice`."""
        global _warned
        notice = self.protections().notice()
        if notice and not _warned:
            _warned = True
            print(f"stepeval: {notice}", file=sys.stderr)

    def close(self) -> None:
        """Kill every spare and the template; a running job's process is killed by its own submit."""
        with self._cond:
            self._closed = True
            spares, self._spares = self._spares, []
            template, self._template = self._template, None
            gateway, self._gateway = self._gateway, None
            directory, self._gateway_directory = self._gateway_directory, None
        for spare in spares:
            spare.close()
        if template is not None:
            template.close()
        if gateway is not None:
            gateway.close()
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- jobs ----------------------------------------------------------------------------------------------------

    def submit(self, job: dict[str, Any], timeout_s: float, *, beside: bool = False) -> ProcessOutcome:
        """Run one job in a fresh evaluation process (waiting for a slot if `size` are running). `beside`: in one more
        process, one such job at a time, so that it never holds a slot a request waits for (a reload importing a
        module that hangs until its step's timeout)."""
        limits = Limits.from_message(job.get("limits"))
        with self._beside if beside else self._slots:
            with self._cond:
                self._running += 1
            try:
                try:
                    process = self._take([path for path in job_paths(job) if os.path.exists(path)])
                except SpawnRefused as exc:  # not a process that ended: no restart counted
                    return ProcessOutcome(None, "sandbox", f"no evaluation process could be started for now: {exc}")
                try:
                    outcome = process.run(job, timeout_s, limits)
                finally:  # an interrupted caller (Ctrl-C) too: the process must not outlive us
                    process.kill()
                    self._reaper.reap(process)
            finally:
                with self._cond:
                    self._running -= 1
            with self._cond:
                if outcome.reply is None:
                    self.restarts += 1
            return outcome

    def _take(self, needed: list[str]) -> EvaluationProcess:
        """A spare whose root holds `needed`; if none does, the oldest spare gives way to one prepared for it."""
        with self._cond:
            if self._closed:
                raise RuntimeError("the pool is closed")
            while True:
                self._refill(self.spares)
                for index, spare in enumerate(self._spares):
                    if all(covered(path, spare.ahead) for path in needed):
                        return self._spares.pop(index)
                if self._spares:  # a lab no spare was prepared for: expected from now on
                    self._warming.expect_paths([path for path in needed if not covered(path, self._ahead())])
                    stale = self._spares.pop(0)
                    stale.kill()
                    self._reaper.reap(stale)
                elif self._refused is not None:  # none forked, the template running: said, not waited for
                    raise SpawnRefused(f"the template could not be sent its descriptors ({self._refused})")
                else:  # every uid belongs to a dying process: wait for the reaper
                    self._cond.wait(1.0)

    def _refill(self, target: int) -> None:
        """Fork spares until `target` are ready or forking (called under the lock); `_refused` says why not, if the
        template refused a request."""
        template = self._ensure_template()
        self._refused = None
        while len(self._spares) < target:
            uid = self._uids.take()
            if uid is None:
                return
            try:
                self._spares.append(EvaluationProcess(template, uid, self._preparation()))
            except OSError as exc:
                self._uids.give_back(uid)
                if template_gone(template, exc):  # ended, with what it forked: another starts at the next call
                    self._end_template(template)
                else:  # refused this once: the template and every evaluation it holds go on
                    self._refused = exc
                return

    def _preparation(self) -> dict[str, Any]:
        """What the template readies a spare with: the clients, kit imports and rehearsals `Warming` keeps, a
        connection to the gateway (once it listens), and whether it rehearses its job: only while fewer jobs run
        than there are CPUs (a rehearsal copies ahead the pages its job will write: it costs the same CPU as the
        job's own copies would, and more for its replays; on a saturated pool it would only slow the jobs running,
        for a latency nobody waits for)."""
        return {
            **self._warming.preparation(),
            "rehearse_job": self.rehearse_jobs and self._running < CPUS,
            "ahead": self._ahead(),
            "gateway": socket_in(self._directory_for_gateway()),
        }

    def _ahead(self) -> list[str]:
        """What a spare's root holds for the jobs to come: the gateway's directory and the labs expected."""
        labs = [lab for lab in self._warming.labs if not covered(lab, self._held)]
        return [self._directory_for_gateway(), *self._held, *labs]

    def _end_template(self, template: TemplateProcess) -> None:
        """Close a template found gone (its socket; killed if it still runs: never one left behind) and forget it,
        with the spares it forked (gone with it: no job is handed one)."""
        if self._template is template:
            self._template = None
        template.close()
        for spare in [spare for spare in self._spares if spare.template is template]:
            self._spares.remove(spare)
            spare.kill()
            self._reaper.reap(spare)

    def _ensure_template(self) -> TemplateProcess:
        if self._template is not None and self._template.process.poll() is not None:
            self._end_template(self._template)
        if self._template is None:
            self._template = TemplateProcess(
                (*self.preload, *self._warming.imports),
                self.namespaces,
                list(self._warming.clients),
                loads_only=self.loads_only,
                huge_pages=not self.one_evaluation,
            )
        return self._template

    def _reaped(self, process: EvaluationProcess) -> None:
        with self._cond:
            if process.uid is not None:
                self._uids.give_back(process.uid)
            if not self._closed and not self.one_evaluation:
                self._refill(self.spares)
            self._cond.notify_all()


_warned = False


def hush_notice() -> None:
    """No sandbox line from this process: a command whose evaluations are a means, not what it reports
    (`stepeval new --from-solution` plays the solution and its mutants to draft a module)."""
    global _warned
    _warned = True


def loading_pool() -> WorkerPool:
    """A pool for `stepeval check`: a few modules imported at once, each in its own process, forked from a template
    that holds only what importing them needs."""
    return WorkerPool(min(CPUS, 4), loads_only=True)


def playthrough_pool(size: int) -> WorkerPool:
    """A pool for a playthrough's `size` lanes (`stepeval test`, `stepeval mutate`): no spare rehearses its job,
    since the lanes and moto take all the CPU there is (see `WorkerPool`)."""
    return WorkerPool(size, rehearse_jobs=False)


def _ms(started: float) -> float:
    return (time.monotonic() - started) * 1000
