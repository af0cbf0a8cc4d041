"""`python -m bench.confinement`: what the sandbox's per-evaluation layers cost an evaluation process, in CPU time
(robust to a busy host, unlike wall time), in the mode this process finds itself in (run it as root, as an
unprivileged user, and under a filter refusing namespaces: `--mode userns|none` relaunches it so, as root).

Each sample forks a child that does, timed with the thread's CPU clock, what the template's evaluation process does
for these layers: before its job (in the spare), the Landlock ruleset built (the seccomp filter is built once, in
the template, unless the process may signal only itself); at its job, what `template._confine` adds to the job's
path: in mode `userns` the user namespace of its own and the capabilities dropped, in mode `none` the count of its
uid's tasks, and in every mode both enforced."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

from bench.common import MODES, in_child, results_console, run_in_mode
from harness.sandbox import filters, kernel
from harness.sandbox.confine import (
    DEVICES,
    SYSTEM_LIBRARIES,
    enter_user_namespace,
    interpreter_paths,
    tasks_of_my_uid,
)
from harness.sandbox.pool import WorkerPool


def timed(step: Callable[[], object]) -> float:
    started = time.thread_time()
    step()
    return (time.thread_time() - started) * 1000


def layers(mode: str, readable: list[str], syscalls: object) -> dict[str, float]:
    found: dict[str, float] = {}
    started = time.thread_time()
    confinement = filters.Confinement(filters.landlock_ruleset(readable, list(DEVICES)), syscalls)
    found["before the job: the ruleset built"] = (time.thread_time() - started) * 1000
    job: dict[str, float] = {}
    if mode == "userns":
        job["user namespace + capabilities"] = timed(
            lambda: (kernel.prctl(kernel.PR_SET_DUMPABLE, 1), enter_user_namespace(0, 0), kernel.drop_capabilities())
        )
    if mode == "none":
        job["count of the uid's tasks"] = timed(tasks_of_my_uid)
    kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
    job["landlock and seccomp enforced"] = timed(lambda: confinement.enforce([], None))
    found.update({f"at the job: {name}": value for name, value in job.items()})
    found["at the job, in all"] = sum(job.values())
    return found


def _mode() -> str:
    with WorkerPool(1) as pool:
        return pool.protections().mode


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.confinement", description=__doc__)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--mode", choices=MODES, default="root", help="run as root, or as in mode userns or none")
    args = parser.parse_args()
    run_in_mode(args.mode, "bench.confinement")
    mode = in_child(lambda: {"mode": _mode()})["mode"]  # a pool's threads would keep this process from unshare
    if mode == "userns":  # as the template does: in a user namespace of its own first (the layers run inside it)
        enter_user_namespace(0, 0)
    filters.seccomp_available(), filters.landlock_abi()
    readable = [*interpreter_paths(), *SYSTEM_LIBRARIES]
    syscalls = filters.compiled(filters.seccomp_filter(pid_namespace=mode != "none", signal_only_self=False))
    samples = [in_child(lambda: layers(mode, readable, syscalls)) for _ in range(args.runs)]
    console = results_console(f"confinement-{mode}")
    console.print(f"mode {mode}, {args.runs} evaluation processes, CPU ms per process (median / max):")
    for name in samples[0]:
        values = [sample[name] for sample in samples]
        console.print(f"  {name:48s} {statistics.median(values):6.3f} / {max(values):6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
