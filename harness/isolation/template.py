"""The template: a clean interpreter that has imported boto3 and the kit, holds no secret, and forks one confined
process per evaluation. Started by `harness.pool` as `python -m harness.isolation.template CONTROL_FD [options]`.

For each spawn request (a JSON record on the SOCK_SEQPACKET control socket, with four fds: the job channel, the
output pipe, the lifeline and the status pipe) it forks a keeper K, which enters new namespaces and forks the
evaluation process E (PID 1 of its own PID namespace). E builds its root with what the request expects the job
to need (the gateway's directory, the labs the pool serves), enters it, opens a connection to the gateway and
says "ready"; when its one job arrives it unmounts what the job does not need, applies the limits, drops
privileges, runs the job and answers. K kills E when the lifeline reads EOF (the parent got its answer, gave up,
or died): the whole PID namespace dies with E. Then K writes E's exit status on the status pipe (how the parent
tells a CPU limit from a crash) and exits.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import gc
import importlib
import json
import logging
import os
import resource
import select
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Callable
from types import ModuleType
from typing import Any

from harness.isolation import kernel
from harness.isolation.confine import (
    NAMESPACES,
    UID_BASE,
    Protections,
    RootBuilder,
    drop_privileges,
    interpreter_paths,
)
from harness.isolation.limits import Limits, apply_limits

CHANNEL_FD = 3  # in an evaluation process: 0 /dev/null, 1 and 2 the output pipe, 3 the job channel
LOG_LEVEL_ENV = "STEPEVAL_LOG_LEVEL"
MAX_CONTROL_BYTES = 64 * 1024
HIGH_FD = 100


def _move_high(fds: list[int]) -> list[int]:
    """Duplicate fds above the standard ones, so that arranging 0-3 cannot clobber one of them."""
    return [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, HIGH_FD) for fd in fds]


def _close_all_but(keep: set[int]) -> None:
    start = 0
    for fd in sorted(keep):
        if fd > start:
            os.closerange(start, fd)
        start = fd + 1
    os.closerange(start, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def count_tasks(uid: int) -> int:
    """Processes and threads running as `uid` (host view), e.g. to tell a fork bomb from a slow module."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(entry.path).st_uid == uid:
                    count += len(os.listdir(os.path.join(entry.path, "task")))
    return count


def sweep_uid(uid: int) -> None:
    """Kill every process of `uid` at once (kill(-1) as that uid), for machines without a PID namespace."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setresuid(uid, uid, uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


class Template:
    """Forks keepers on request; reaps nothing itself (SIGCHLD ignored: the kernel reaps them)."""

    def __init__(self, control: socket.socket, protections: Protections, root_dir: str, worker: ModuleType) -> None:
        self.worker = worker  # harness.worker, imported once the prober is forked
        self.control = control
        self.protections = protections
        self.root_dir = root_dir
        self.paths = interpreter_paths()

    def serve(self) -> None:
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(self.control, MAX_CONTROL_BYTES, 4)
            except (ConnectionError, OSError):
                return
            if not data:
                return
            request = json.loads(data)
            pairs = [(str(service), str(region)) for service, region in request.get("warm") or []]
            operations = [(str(service), str(name)) for service, name in request.get("rehearse") or []]
            self.worker.import_kit([str(module) for module in request.get("imports") or []])
            self.worker.warm_services(pairs, operations)
            gc.freeze()  # what the template built stays out of the children's collections: no copy-on-write storm
            try:
                if os.fork() == 0:
                    self._keeper(request, fds)  # never returns
            finally:
                for fd in fds:
                    os.close(fd)

    def _keeper(self, request: dict[str, Any], fds: list[int]) -> None:
        code = 1
        try:
            channel, output, lifeline, status = _move_high(fds)
            _close_all_but({0, 1, 2, channel, output, lifeline, status})
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            namespaced = self.protections.pid_namespace
            uid = request.get("uid") if self.protections.own_uid else None
            # The mount namespace is the evaluation's own (below): the keeper keeps the host's view. No network at
            # all: the gateway's unix socket is the evaluation's only way out.
            if namespaced:
                kernel.unshare(NAMESPACES & ~kernel.CLONE_NEWNS | kernel.CLONE_NEWNET)
            pid = os.fork()
            if pid == 0:
                os.close(lifeline)
                os.close(status)
                self._evaluation(channel, output, uid, namespaced, request)  # never returns
            os.close(channel)
            os.close(output)
            keep_watch(pid, lifeline, status, uid, namespaced)
            code = 0
        finally:
            os._exit(code)

    def _evaluation(
        self, channel: int, output: int, uid: int | None, namespaced: bool, request: dict[str, Any]
    ) -> None:
        code = 70
        try:
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(output, 1)
            os.dup2(output, 2)
            os.dup2(channel, CHANNEL_FD, inheritable=False)
            _close_all_but({0, 1, 2, CHANNEL_FD})
            for signum in (signal.SIGCHLD, signal.SIGPIPE, signal.SIGXFSZ):
                signal.signal(signum, signal.SIG_DFL if signum == signal.SIGCHLD else signal.SIG_IGN)
            root = RootBuilder(self.root_dir)
            gateway = request.get("gateway")
            if namespaced:
                kernel.unshare(kernel.CLONE_NEWNS)
                root.prepare(self.paths)
                root.enter([str(path) for path in request.get("ahead") or []])
            else:
                os.setsid()  # its own group: what it starts can be killed with it (and, with a uid, swept)
            self.worker.serve_one(
                CHANNEL_FD,
                lambda job_paths, limits: _confine(root, job_paths, limits, uid, namespaced),
                gateway if isinstance(gateway, str) else None,
            )
            code = 0
        finally:
            os._exit(code)


def _confine(root: RootBuilder, job_paths: list[str], limits: Limits, uid: int | None, namespaced: bool) -> None:
    """The moment before author code runs: only the job's paths left in the root, limits set, privileges gone."""
    if namespaced:
        root.narrow(job_paths)
    apply_limits(limits, count_processes=uid is not None)
    drop_privileges(uid)


def keep_watch(pid: int, lifeline: int, status: int, uid: int | None, namespaced: bool) -> None:
    """Kill the evaluation at the lifeline's EOF (or see it end), then report how it ended on `status`."""
    watched = os.pidfd_open(pid)
    ready, _, _ = select.select([lifeline, watched], [], [])
    killed, tasks = False, None
    if watched not in ready:  # the parent has its answer, gave up, or died: the evaluation ends now
        if uid is not None:
            tasks = count_tasks(uid)
        os.kill(pid, signal.SIGKILL)  # PID 1 of its namespace: every process in it dies too
        killed = True
    if not namespaced:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    _, wait_status, usage = os.wait4(pid, 0)
    if not namespaced and uid is not None:
        sweep_uid(uid)  # children that left the group (setsid)
    report = {
        "exit": os.waitstatus_to_exitcode(wait_status),
        "killed": killed,
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "tasks": tasks,
    }
    with contextlib.suppress(OSError):
        os.write(status, json.dumps(report).encode())


def probe_in_background(allow_namespaces: bool, uid: int) -> Callable[[], Protections]:
    """Fork a prober now (before the heavy imports, so that its own forks are light) and return how to wait for
    what it found; meanwhile the template imports and warms."""
    findings, theirs = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(findings)
            os.write(theirs, json.dumps(probe(allow_namespaces, uid).to_message()).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(theirs)

    def found() -> Protections:
        with os.fdopen(findings, "rb") as pipe:
            data = pipe.read()
        os.waitpid(pid, 0)
        if not data:  # the prober died: nothing is known to work but what needs no probe
            return Protections(fresh_process=True, rlimits=True)
        return Protections.from_message(json.loads(data))

    return found


def probe(allow_namespaces: bool, uid: int) -> Protections:
    """What this machine lets the template do, tried once in a throw-away child."""
    namespaced = allow_namespaces and _try_in_child(_namespaces_work)
    own_uid = os.geteuid() == 0 and _try_in_child(lambda: _uid_works(uid, namespaced))
    return Protections(
        fresh_process=True,
        pid_namespace=namespaced,
        mount_namespace=namespaced,
        network_namespace=namespaced,
        ipc_uts_namespaces=namespaced,
        own_uid=own_uid,
        no_new_privs=_try_in_child(lambda: kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)),
        rlimits=True,
    )


def _try_in_child(attempt: Any) -> bool:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            attempt()
            code = 0
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    _, wait_status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(wait_status) == 0


def _namespaces_work() -> None:
    kernel.unshare(NAMESPACES & ~kernel.CLONE_NEWNS | kernel.CLONE_NEWNET)
    where = tempfile.mkdtemp(prefix="stepeval-probe-")
    try:
        if not _try_in_child(lambda: _root_works(where)):
            raise OSError("cannot build a root")
    finally:
        os.rmdir(where)


def _root_works(where: str) -> None:
    kernel.unshare(kernel.CLONE_NEWNS)
    root = RootBuilder(where)
    root.prepare(interpreter_paths())
    root.enter([])


def _uid_works(uid: int, namespaced: bool) -> None:
    """Switching to `uid` works and, without a new root, the interpreter's files stay readable to it."""
    paths = interpreter_paths()
    drop_privileges(uid)
    if not namespaced:
        for path in paths:
            if not os.access(path, os.R_OK | (os.X_OK if os.path.isdir(path) else 0)):
                raise PermissionError(path)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harness.isolation.template")
    parser.add_argument("control_fd", type=int)
    parser.add_argument("--no-namespaces", action="store_true")
    parser.add_argument("--uid-probe", type=int, default=UID_BASE)
    parser.add_argument("--warm", action="append", default=[], metavar="SERVICE:REGION")
    parser.add_argument("preload", nargs="*")
    args = parser.parse_args(argv)
    control = socket.socket(fileno=args.control_fd)
    kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.dup2(2, 1)  # the template prints nothing; if it did, never on the caller's stdout
    sys.stdout = sys.stderr
    sys.dont_write_bytecode = True
    level = os.environ.get(LOG_LEVEL_ENV, "INFO").upper()
    logging.basicConfig(level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    protections_found = probe_in_background(not args.no_namespaces, args.uid_probe)
    from harness import worker  # boto3, botocore's data, the kit: what every evaluation would otherwise import

    for module in args.preload:
        importlib.import_module(module)
    worker.prepare()
    worker.warm_services([tuple(pair.split(":", 1)) for pair in args.warm if ":" in pair], [])
    protections = protections_found()
    root_dir = tempfile.mkdtemp(prefix="stepeval-root-")
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # keepers are reaped by the kernel
    try:
        control.send(json.dumps({"ready": True, "protections": protections.to_message()}).encode())
        Template(control, protections, root_dir, worker).serve()
    finally:
        shutil.rmtree(root_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
