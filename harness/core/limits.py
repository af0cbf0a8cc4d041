"""Per-evaluation resource limits: what the spec may set, their defaults, and applying them as rlimits."""

from __future__ import annotations

import contextlib
import math
import os
import resource
from dataclasses import asdict, dataclass
from typing import Any

DEFAULT_MEMORY_MIB = 512
DEFAULT_PROCESSES = 64
DEFAULT_OUTPUT_KIB = 1024
DEFAULT_FILES = 256
DEFAULT_ANSWER_KIB = 1024
MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """What one evaluation may use. `memory_mib` is address space beyond the harness's own (measured at the job's
    start), per process; `processes` counts its processes and threads; `cpu_seconds` is the CPU time of the
    evaluation's main process; `output_kib` caps what it writes on stdout and stderr together; `files` its open
    file descriptors (per process); `answer_kib` the reply it sends (its result, checks and log lines)."""

    memory_mib: int = DEFAULT_MEMORY_MIB
    processes: int = DEFAULT_PROCESSES
    cpu_seconds: float | None = None  # None: the step's timeout (the runner fills it in)
    output_kib: int = DEFAULT_OUTPUT_KIB
    files: int = DEFAULT_FILES
    answer_kib: int = DEFAULT_ANSWER_KIB

    @property
    def output_bytes(self) -> int:
        return self.output_kib * 1024

    @property
    def answer_bytes(self) -> int:
        return self.answer_kib * 1024

    def to_message(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_message(cls, raw: dict[str, Any] | None) -> Limits:
        return cls(**raw) if raw else cls()


def address_space_now() -> int:
    """This process's virtual size (VmSize), in bytes: the first field of /proc/self/statm, in pages (the kernel
    writes it without the rest of /proc/self/status; read without a file object: ~0.07 ms less at each job)."""
    fd = os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC)
    try:
        return int(os.read(fd, 256).split()[0]) * os.sysconf("SC_PAGE_SIZE")
    finally:
        os.close(fd)


def apply_limits(limits: Limits, *, tasks_before: int) -> None:
    """Set the rlimits for the code about to run: memory, CPU, open files, processes and threads (RLIMIT_NPROC
    counts every task of the uid in its user namespace: `tasks_before` is how many are not the evaluation's own,
    0 where the uid or the user namespace is its own), no core files, no file may grow (a write to any file,
    tmpfs and memfd included, fails with EFBIG: no memory held there), no POSIX message queue."""
    memory = address_space_now() + limits.memory_mib * MIB
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    if limits.cpu_seconds is not None:
        cpu = max(1, math.ceil(limits.cpu_seconds))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU at the limit, SIGKILL a second later
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.files, limits.files))
    tasks = tasks_before + limits.processes
    resource.setrlimit(resource.RLIMIT_NPROC, (tasks, tasks))


def raise_open_files() -> int:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit, as servers do at start; the new soft limit.

    The kernel refuses a process's descriptor passing (SCM_RIGHTS: ETOOMANYREFS) while its uid's descriptors in
    flight outnumber its own soft limit, and where evaluations share the harness's uid they count in it: at 1024
    (systemd's default) one module allowed `files: 4096` stops the pool's every spawn. The processes it starts
    inherit the raised limit: the template, which holds a few descriptors per evaluation; never an evaluation, whose
    own `files` limit (soft and hard) `apply_limits` sets."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        with contextlib.suppress(ValueError, OSError):  # a hard limit past fs.nr_open (unlimited): kept as it is
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
