"""Per-evaluation resource limits: what the spec may set, their defaults, and applying them as rlimits."""

from __future__ import annotations

import math
import resource
from dataclasses import asdict, dataclass
from typing import Any

DEFAULT_MEMORY_MIB = 512
DEFAULT_PROCESSES = 64
DEFAULT_OUTPUT_KIB = 1024
MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """What one evaluation may use. `memory_mib` is address space beyond the harness's own (measured at the job's
    start); `processes` counts processes and threads of the evaluation's uid; `cpu_seconds` is the CPU time of
    the evaluation's main process; `output_kib` caps what it writes on stdout and stderr together."""

    memory_mib: int = DEFAULT_MEMORY_MIB
    processes: int = DEFAULT_PROCESSES
    cpu_seconds: float | None = None  # None: the step's timeout (the runner fills it in)
    output_kib: int = DEFAULT_OUTPUT_KIB

    @property
    def output_bytes(self) -> int:
        return self.output_kib * 1024

    def to_message(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_message(cls, raw: dict[str, Any] | None) -> Limits:
        return cls(**raw) if raw else cls()


def address_space_now() -> int:
    """This process's virtual size (VmSize), in bytes."""
    with open("/proc/self/status", "rb") as status:
        for line in status:
            if line.startswith(b"VmSize:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmSize in /proc/self/status")


def apply_limits(limits: Limits, *, count_processes: bool) -> None:
    """Set the rlimits for the code about to run: memory, CPU, processes (only where the uid is the evaluation's
    own, else RLIMIT_NPROC would count the caller's processes), no core files, no file writes."""
    memory = address_space_now() + limits.memory_mib * MIB
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    if limits.cpu_seconds is not None:
        cpu = max(1, math.ceil(limits.cpu_seconds))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU at the limit, SIGKILL a second later
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))  # no file may grow: writes fail with EFBIG
    if count_processes:
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
