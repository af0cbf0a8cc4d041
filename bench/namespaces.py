"""`python -m bench.namespaces`: what an evaluation process's namespaces cost it, in CPU time, as the template makes
them (docs/decisions/0026-namespaces-per-template.md) beside each evaluation making all its own as it did before.
Run as root (mode root; in mode userns the calls are the same, under the template's user namespace).

For each arrangement a stand-in template makes the namespaces its evaluations share, then forks evaluation
processes in turn, each timed with the thread's CPU clock: its `unshare` (and, when each makes its own, the IPC
limits written), its root built and entered (`RootBuilder.prepare` and `enter`), and its whole life by `wait4`
(its exit included: the namespaces it leaves). The arrangements run in interleaved rounds (the machine's other work
falls on all alike). The kernel's asynchronous teardown of a network namespace (`cleanup_net`, in a kworker, ~0.3-0.5
ms of the machine's CPU each) is in no evaluation's figures."""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

from bench.common import in_child, results_console
from harness.sandbox import kernel
from harness.sandbox.confine import HOSTNAME, Protections, RootBuilder, interpreter_paths
from harness.sandbox.template import IPC_LIMITS, enter_template_namespaces, evaluation_namespaces, network_shared

EACH_OWN = "each its own mount, UTS, IPC, network (before)"
OWN_NETWORK = "the template's UTS, IPC; its own network"
SHARED = "the template's UTS, IPC, network (Landlock scope)"


def _each_own() -> None:
    """Before decision 0026: every namespace the evaluation's own, its host name and IPC limits set by it."""
    kernel.unshare(kernel.CLONE_NEWNS | kernel.CLONE_NEWUTS | kernel.CLONE_NEWIPC | kernel.CLONE_NEWNET)
    socket.sethostname(HOSTNAME.decode())
    for name, value in IPC_LIMITS.items():
        with open(f"/proc/sys/{name}", "w") as limit:
            limit.write(value)


def arrangements() -> dict[str, tuple[Callable[[], None], Callable[[], None], bool]]:
    """Each arrangement: what its template does once, what each evaluation does, whether its /proc/sys is bound
    read-only (where Landlock is off; here it is taken as on, as in the two arrangements after)."""

    def shared(scopes: bool) -> tuple[Callable[[], None], Callable[[], None], bool]:
        protections = Protections(mode="root", pid_namespace=True, seccomp=True, landlock=True, landlock_scopes=scopes)
        flags = evaluation_namespaces(protections)
        return (
            lambda: enter_template_namespaces(network=network_shared(protections)),
            lambda: kernel.unshare(flags),
            False,
        )

    return {EACH_OWN: (lambda: None, _each_own, False), OWN_NETWORK: shared(False), SHARED: shared(True)}


def _evaluation(start: Callable[[], None], read_only: bool, where: str, paths: list[str], writer: int) -> None:
    began = time.thread_time()
    start()
    unshared = time.thread_time()
    root = RootBuilder(where)
    root.prepare(paths, sysctls_read_only=read_only)
    root.enter([])
    rooted = time.thread_time()
    os.write(writer, json.dumps([(unshared - began) * 1000, (rooted - unshared) * 1000]).encode())


def _template(arrangement: tuple[Callable[[], None], Callable[[], None], bool], count: int) -> list[list[float]]:
    """A stand-in template: its namespaces made, `count` evaluation processes forked one after another."""
    once, start, read_only = arrangement
    once()
    where = tempfile.mkdtemp(prefix="stepeval-bench-root-")
    paths = interpreter_paths()
    found = []
    for _ in range(count):
        reader, theirs = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.close(reader)
                _evaluation(start, read_only, where, paths, theirs)
                code = 0
            finally:
                os._exit(code)
        os.close(theirs)
        with os.fdopen(reader, "rb") as pipe:
            unshare, root = json.loads(pipe.read())
        _, _, usage = os.wait4(pid, 0)
        found.append([unshare, root, (usage.ru_utime + usage.ru_stime) * 1000])
    os.rmdir(where)
    return found


def in_template(arrangement: tuple[Callable[[], None], Callable[[], None], bool], count: int) -> list[list[float]]:
    result: list[list[float]] = in_child(lambda: _template(arrangement, count))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.namespaces", description=__doc__)
    parser.add_argument("--runs", type=int, default=300, help="evaluation processes per arrangement (300)")
    parser.add_argument("--round", type=int, default=20, help="evaluations per arrangement in each round (20)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("python -m bench.namespaces: skipped, needs root (it makes namespaces as the template does in mode root)")
        return 0
    found: dict[str, list[list[float]]] = {name: [] for name in arrangements()}
    for turn in range(-(-args.runs // args.round)):
        names = list(found) if turn % 2 == 0 else list(reversed(found))
        for name in names:
            found[name] += in_template(arrangements()[name], args.round)
    console = results_console("namespaces")
    console.print(f"mode root, {args.runs} evaluation processes per arrangement, interleaved, CPU ms (mean / median):")
    console.print(f"  {'arrangement':52s} {'unshare':>15s} {'root built':>15s} {'whole process':>15s}")
    for name, rows in found.items():
        columns = [[row[index] for row in rows[: args.runs]] for index in range(3)]
        cells = [f"{statistics.mean(c):6.3f} / {statistics.median(c):6.3f}" for c in columns]
        console.print(f"  {name:52s} {cells[0]:>15s} {cells[1]:>15s} {cells[2]:>15s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
