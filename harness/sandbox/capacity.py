"""How many evaluations a machine runs at once by default: sized by what one costs, not a small fixed count.

An evaluation spends nearly all its life waiting on AWS; what it holds meanwhile is one process (a few MiB of
memory of its own: the rest is shared with the template it was forked from) and a little CPU at its start and at
its answer. So the default is the smaller of what the memory allows and what the cores can drive, within
[MIN_WORKERS, MAX_WORKERS]. The figures per evaluation were measured with `python -m bench.service` (PSS of each
evaluation process; CPU per evaluation at 100 ms per AWS call) and are checked again at start-up: `measured_mib`
reads the PSS of the processes the template forked, where the kernel lets this process read them.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

EVALUATION_MIB = 16
"""Memory one evaluation process is planned at: its PSS measured 4-9 MiB with a step of three describe calls, 14-19
MiB counting the template's share (bench.service); a step that reads big answers holds more while it runs."""
MEMORY_SHARE = 0.5
"""The share of the memory available at start that evaluations may take (the rest: the harness, the gateway's
buffers, moto in a dry run, and whatever else the machine runs)."""
PER_CPU = 16
"""Evaluations one core drives at once: one costs ~30 ms of CPU on the service's path (fork, confinement, botocore at
both ends of the gateway) for 0.3-1 s of waiting on AWS (three to ten calls of 50-100 ms). bench.service at 100 ms
per call on 2 cores (docs/decisions/0025): 32 workers gave the throughput of 64 (15.3 and 15.0 evaluations/s, the
means of runs interleaved on a shared machine), 16 a fifth less; more only fork processes that wait for the CPU."""
MIN_WORKERS, MAX_WORKERS = 4, 128
CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
MIB = 1024 * 1024


@dataclass(frozen=True)
class Capacity:
    """Evaluations running at once (`workers`) and waiting for a process (`queue`), and what they were sized by."""

    workers: int
    queue: int
    basis: str  # "set" (configured), "memory" or "cpu" (the default: whichever allowed fewer)
    memory_mib: int | None  # available to this process's cgroup at start (None: unknown)
    cpus: int

    @property
    def limit(self) -> int:
        """Evaluations admitted at once (running or waiting); one more is refused (429)."""
        return self.workers + self.queue

    def describe(self) -> dict[str, object]:
        """For the start-up log line and /readyz."""
        return {
            "workers": self.workers,
            "queue": self.queue,
            "limit": self.limit,
            "sized_by": self.basis,
            "memory_mib": self.memory_mib,
            "cpus": self.cpus,
            "planned_mib_per_evaluation": EVALUATION_MIB,
        }


def plan(workers: int | None, queue: int | None, *, memory_mib: int | None = None, cpus: int = CPUS) -> Capacity:
    """The capacity: `workers` and `queue` as configured, or (None) derived from this machine's memory and cores.

    The default queue holds as many as run: a class pressing "check" at once waits a moment rather than getting 429.
    """
    memory_mib = available_memory_mib() if memory_mib is None else memory_mib
    if workers is not None:
        basis = "set"
    else:
        by_cpu = PER_CPU * cpus
        by_memory = int(memory_mib * MEMORY_SHARE) // EVALUATION_MIB if memory_mib is not None else by_cpu
        workers = max(MIN_WORKERS, min(by_cpu, by_memory, MAX_WORKERS))
        basis = "memory" if by_memory < by_cpu else "cpu"
    return Capacity(workers, workers if queue is None else queue, basis, memory_mib, cpus)


def available_memory_mib() -> int | None:
    """What this process may still use: the kernel's MemAvailable, or less where a cgroup (a container) caps it."""
    available = _meminfo_mib("MemAvailable")
    cap = _cgroup_room_mib()
    if available is None:
        return cap
    return available if cap is None else min(available, cap)


def _meminfo_mib(field: str) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            name, _, value = line.partition(":")
            if name == field:
                return int(value.split()[0]) // 1024
    return None


def _cgroup_room_mib() -> int | None:
    """memory.max less memory.current of this process's cgroup (v2), or v1's limit less usage; None: no cap."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        line = Path("/proc/self/cgroup").read_text().splitlines()[0]
        if line.startswith("0::"):
            group = Path("/sys/fs/cgroup") / line[3:].lstrip("/")
            limit = (group / "memory.max").read_text().strip()
            if limit == "max":
                return None
            return (int(limit) - int((group / "memory.current").read_text())) // MIB
    with contextlib.suppress(OSError, ValueError):
        v1 = Path("/sys/fs/cgroup/memory")
        v1_limit = int((v1 / "memory.limit_in_bytes").read_text())
        if v1_limit >= 1 << 60:  # v1's "no limit"
            return None
        return (v1_limit - int((v1 / "memory.usage_in_bytes").read_text())) // MIB
    return None


def measured_mib(template_pid: int) -> float | None:
    """The mean PSS (MiB) of the processes `template_pid` forked (spares, running evaluations), as this process may
    read them (root, or the same uid where they stay dumpable); None when none could be read."""
    children: list[str] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{template_pid}/task").iterdir():
            with contextlib.suppress(OSError):
                children += (task / "children").read_text().split()
    sizes = [size for pid in children if (size := _pss_mib(pid)) is not None]
    return sum(sizes) / len(sizes) if sizes else None


def _pss_mib(pid: str) -> float | None:
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return None
