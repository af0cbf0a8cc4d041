"""The template: a clean interpreter that has imported boto3 and the kit, holds no secret, and forks one confined
process per evaluation. Started by `harness.sandbox.pool` as `python -m harness.sandbox.template CONTROL_FD [options]`.

For each spawn request (a JSON record on the SOCK_SEQPACKET control socket, with four fds: the job channel, the
output pipe, the lifeline and the status pipe) it forks the evaluation process E straight into a new PID
namespace (E is its PID 1; the template's own children go back to its namespace at once). E enters new mount,
network, IPC and UTS namespaces, builds its root with what the request expects the job to need (the gateway's
directory, the labs the pool serves), enters it, opens a connection to the gateway and says "ready"; when its
one job arrives it unmounts what the job does not need, applies the limits, drops privileges, runs the job and
answers. The template watches every E it forked: at the lifeline's end (the parent got its answer, gave up, or
died) it kills E, and the whole PID namespace dies with it; once E is gone it writes how it ended on the status
pipe (how the parent tells a CPU limit from a crash). E dies with the template too (its parent-death signal).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import fcntl
import gc
import importlib
import json
import logging
import os
import resource
import select
import selectors
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from harness.core.limits import Limits, apply_limits
from harness.core.startup import collections_paused
from harness.sandbox import filters, hugepages, kernel
from harness.sandbox.confine import (
    DEVICES,
    HOSTNAME,
    SHARED_NAMESPACES,
    SYSTEM_LIBRARIES,
    UID_BASE,
    Protections,
    RootBuilder,
    drop_privileges,
    enter_user_namespace,
    interpreter_paths,
    tasks_of_my_uid,
)

CHANNEL_FD = 3  # in an evaluation process: 0 /dev/null, 1 and 2 the output pipe, 3 the job channel
ALIVE_FD = 4  # and until its job, 4: EOF once the template is gone
ANSWERED = b"."  # what the parent writes on a lifeline before closing it when it has its answer
LOG_LEVEL_ENV = "STEPEVAL_LOG_LEVEL"
MAX_CONTROL_BYTES = 64 * 1024
HIGH_FD = 100
REAP_POLL_S = 1.0  # while processes a module left are being killed: how often the template looks to reap them
# SysV IPC in the template's own IPC namespace, which its evaluations share: no segment, no queue, no semaphore set
# may be made in it (memory that RLIMIT_AS does not count, and an object two evaluations could both reach); the filter
# refuses every SysV and POSIX IPC call besides (docs/decisions/0026-namespaces-per-template.md)
IPC_LIMITS = {
    "kernel/shmmni": "0",
    "kernel/shmall": "0",
    "kernel/shmmax": "0",
    "kernel/msgmni": "0",
    "kernel/sem": "0 0 0 0",
}


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


def _close(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def count_tasks(uid: int) -> int:
    """Processes and threads running as `uid` (host view), e.g. to tell a fork bomb from a slow module."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(entry.path).st_uid == uid:
                    count += len(os.listdir(os.path.join(entry.path, "task")))
    return count


def count_group_tasks(group: int) -> int:
    """Processes and threads in process group `group` (an evaluation's: the filter keeps its processes in it),
    where its uid is not its own."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(os.path.join(entry.path, "stat"), "rb") as stat:
                    fields = stat.read().rpartition(b")")[2].split()
                if int(fields[2]) == group:  # after the command: state, ppid, pgrp, ... num_threads (18th)
                    count += int(fields[17])
    return count


def at_task_limit(pid: int) -> bool:
    """Where the uid is shared (mode none, no uid of its own): its tasks have reached process `pid`'s RLIMIT_NPROC,
    which counts them all, so its forks fail (its own group may hold fewer than its limit: others' tasks count)."""
    with contextlib.suppress(OSError, ValueError, IndexError), open(f"/proc/{pid}/limits") as limits:
        for line in limits:
            if line.startswith("Max processes"):
                soft = line.split()[2]
                return soft != "unlimited" and count_tasks(os.getuid()) >= int(soft) - 1
    return False


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


@dataclass
class Watched:
    """An evaluation process the template forked: how to see it end and kill it, and where to say how it ended."""

    pid: int
    pidfd: int
    lifeline: int  # the parent holds its other end: "." then EOF when it has its answer, EOF alone otherwise
    status: int
    uid: int | None
    killed: bool = False
    tasks: int | None = None
    at_task_limit: bool = False  # where its uid is shared: the uid's tasks had reached its RLIMIT_NPROC


class Template:
    """Forks evaluation processes on request and watches each until it is gone (one thread, one selector)."""

    def __init__(
        self,
        control: socket.socket,
        protections: Protections,
        root_dir: str,
        worker: ModuleType,
        *,
        huge_pages: bool = True,
    ) -> None:
        self.worker = (
            worker  # harness.inside.worker (harness.inside.job: loads only), imported once the prober is forked
        )
        self.control = control
        self.protections = protections
        self.root_dir = root_dir
        self.paths = interpreter_paths()
        self.selector = selectors.DefaultSelector()
        # The template's own PID namespace, to go back to after each fork into a new one (where there are any).
        self.own_pid_namespace = (
            os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC) if protections.pid_namespace else -1
        )
        # Only the template holds the write end: EOF on it tells an evaluation process the template is gone.
        self.alive, self._alive_writer = os.pipe()
        # The seccomp filter, built and compiled once where nothing in it is an evaluation process's own (its pid is,
        # where it may signal only itself: then each builds its own, before its job); each loads the same program
        self.syscalls = (
            filters.compiled(filters.seccomp_filter(pid_namespace=protections.pid_namespace, signal_only_self=False))
            if protections.seccomp and not _signal_only_self(protections)
            else None
        )
        if protections.landlock:  # built once here, so that what building one readies (flags...) is inherited
            filters.landlock_ruleset(self._readable(), list(DEVICES)).close()
        self.groups_to_reap: set[int] = set()  # process groups of ended evaluations whose orphans came to us
        self.watched: dict[int, Watched] = {}  # by pid: the evaluation processes not yet reported
        # its memory by huge pages: each fork copies, and each evaluation's exit frees, a 2 MiB folio at a time
        self.collapsing = hugepages.Collapsing(huge_pages)

    def serve(self) -> None:
        self.selector.register(self.control, selectors.EVENT_READ)
        while True:
            events = self.selector.select(REAP_POLL_S if self.groups_to_reap else None)
            self._reap_groups()
            for key, _ in events:
                if self.selector.get_map().get(key.fileobj) is not key:
                    continue  # closed by an earlier event of the same batch (its fd may even be another's by now)
                if key.data is None:
                    if not self._spawn_requested():
                        return
                else:
                    handler, watched = key.data
                    handler(watched)

    def _spawn_requested(self) -> bool:
        """Read one spawn request and fork its process; False once the pool has closed the control socket."""
        try:
            data, fds, _, _ = socket.recv_fds(self.control, MAX_CONTROL_BYTES, 4)
        except (ConnectionError, OSError):
            return False
        if not data:
            return False
        if len(fds) != 4:
            _close(fds)
            return True
        try:
            request = json.loads(data)
            pairs = [(str(service), str(region)) for service, region in request.get("warm") or []]
            operations = [(str(service), str(name)) for service, name in request.get("rehearse") or []]
            self.worker.import_kit([str(module) for module in request.get("imports") or []])
            self.worker.warm_services(pairs, operations)
            gc.freeze()  # what the template built stays out of the children's collections: no copy-on-write storm
            self.collapsing.before_fork()  # what it built, by huge pages (once it has grown by one)
            uid = request.get("uid") if self.protections.own_uid else None
            channel, output, lifeline, status = fds
            pid = self._fork(request, uid, channel, output)  # E closes every fd but these two
        except OSError as exc:  # no process (EAGAIN...): the parent sees the channel close, "did not start"
            logging.getLogger(__name__).warning("no evaluation process: %s", exc)
            _close(fds)
            return True
        _close([channel, output])
        watched = Watched(pid, os.pidfd_open(pid), lifeline, status, uid)
        self.watched[pid] = watched
        self.selector.register(watched.lifeline, selectors.EVENT_READ, (self._lifeline_ended, watched))
        self.selector.register(watched.pidfd, selectors.EVENT_READ, (self._exited, watched))
        return True

    def _fork(self, request: dict[str, Any], uid: int | None, channel: int, output: int) -> int:
        """Fork the evaluation process (PID 1 of a new PID namespace where namespaces work); its pid."""
        namespaced = self.protections.pid_namespace
        if namespaced:
            kernel.unshare(kernel.CLONE_NEWPID)  # the next child is PID 1 of a new namespace
        try:
            pid = os.fork()
        except OSError:
            self._own_pid_namespace_again()
            raise
        if pid == 0:
            self._evaluation(channel, output, uid, namespaced, request)  # never returns
        self._own_pid_namespace_again()
        return pid

    def _own_pid_namespace_again(self) -> None:
        """The template's next children are born in its own PID namespace (until the next `unshare`)."""
        if self.protections.pid_namespace:
            kernel.setns(self.own_pid_namespace, kernel.CLONE_NEWPID)

    def _lifeline_ended(self, watched: Watched) -> None:
        """The parent has its answer, gave up, or died: the evaluation ends now (its whole namespace with it)."""
        answered = False
        with contextlib.suppress(OSError):
            answered = os.read(watched.lifeline, 1) == ANSWERED
        self.selector.unregister(watched.lifeline)
        os.close(watched.lifeline)
        watched.lifeline = -1
        if os.waitid(os.P_PIDFD, watched.pidfd, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            return  # it has ended already: `_exited` reports it
        if not answered:  # what it left running tells a fork bomb from a slow module
            watched.tasks = count_tasks(watched.uid) if watched.uid is not None else count_group_tasks(watched.pid)
            watched.at_task_limit = (
                watched.uid is None and self.protections.mode == "none" and at_task_limit(watched.pid)
            )
        # PID 1 of its namespace: every process in it dies (without one, `_exited` kills its group once it is gone)
        signal.pidfd_send_signal(watched.pidfd, signal.SIGKILL)
        watched.killed = True

    def _exited(self, watched: Watched) -> None:
        """The evaluation process is gone: reap it and report how it ended."""
        if not self.protections.pid_namespace:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(watched.pid, signal.SIGKILL)  # what it started: its group (the filter keeps them in it)
        _, wait_status, usage = os.wait4(watched.pid, 0)
        if not self.protections.pid_namespace:
            self.groups_to_reap.add(watched.pid)  # its orphans are ours (the subreaper): reaped once they are gone
            if watched.uid is not None:
                sweep_uid(watched.uid)  # children that left the group (setsid), where the filter is not loaded
        report = {
            "exit": os.waitstatus_to_exitcode(wait_status),
            "killed": watched.killed,
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
            "tasks": watched.tasks,
            "at_task_limit": watched.at_task_limit,
        }
        with contextlib.suppress(OSError):
            os.write(watched.status, json.dumps(report).encode())
        self.selector.unregister(watched.pidfd)
        self.watched.pop(watched.pid, None)
        for fd in (watched.pidfd, watched.status):
            os.close(fd)
        if watched.lifeline >= 0:
            self.selector.unregister(watched.lifeline)
            os.close(watched.lifeline)

    def end(self) -> None:
        """The pool is gone: every evaluation process ends now, with what it started."""
        for watched in list(self.watched.values()):
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(watched.pidfd, signal.SIGKILL)
            self._exited(watched)
        self._reap_groups()

    def _reap_groups(self) -> None:
        """Reap what ended evaluations left (orphans the template adopted as subreaper, killed with their group)."""
        for group in list(self.groups_to_reap):
            try:
                while os.waitid(os.P_PGID, group, os.WEXITED | os.WNOHANG) is not None:
                    pass
            except ChildProcessError:
                self.groups_to_reap.discard(group)

    def _evaluation(
        self, channel: int, output: int, uid: int | None, namespaced: bool, request: dict[str, Any]
    ) -> None:
        code = 70
        try:
            kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)  # set again once its uid is the job's
            os.close(self._alive_writer)
            if select.select([self.alive], [], [], 0)[0]:  # EOF: the template died before the signal was set
                return
            channel, output, alive = _move_high([channel, output, self.alive])
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(output, 1)
            os.dup2(output, 2)
            os.dup2(channel, CHANNEL_FD, inheritable=False)
            os.dup2(alive, ALIVE_FD, inheritable=False)
            _close_all_but({0, 1, 2, CHANNEL_FD, ALIVE_FD})  # nothing of the template's or of other evaluations
            for signum in (signal.SIGCHLD, signal.SIGPIPE, signal.SIGXFSZ):
                signal.signal(signum, signal.SIG_DFL if signum == signal.SIGCHLD else signal.SIG_IGN)
            root = RootBuilder(self.root_dir)
            gateway = request.get("gateway")
            os.setsid()  # its own group: what it starts is killed with it (the filter keeps them in it)
            if namespaced:
                # its own mount namespace (and network namespace, where it may not share the template's: no network
                # at all either way, the gateway's unix socket is its only way out); IPC and UTS are the template's
                kernel.unshare(evaluation_namespaces(self.protections))
                root.prepare(self.paths, sysctls_read_only=not self.protections.landlock)
                root.enter([str(path) for path in request.get("ahead") or []])
            confinement = self._confinement()
            protections = self.protections
            self.worker.serve_one(
                CHANNEL_FD,
                lambda job_paths, limits: _confine(root, job_paths, limits, uid, protections, confinement),
                gateway if isinstance(gateway, str) else None,
                rehearse_job=bool(request.get("rehearse_job")),
            )
            code = 0
        finally:
            os._exit(code)

    def _readable(self) -> list[str]:
        """What every evaluation process may read whatever its job: the interpreter and the system's libraries."""
        return [*self.paths, *SYSTEM_LIBRARIES]

    def _confinement(self) -> filters.Confinement:
        """This evaluation process's Landlock ruleset (the interpreter readable: its job's paths come at the job)
        and seccomp filter, built now, before its job."""
        protections = self.protections
        ruleset = filters.landlock_ruleset(self._readable(), list(DEVICES)) if protections.landlock else None
        syscalls: Any = self.syscalls
        if protections.seccomp and syscalls is None:
            syscalls = filters.seccomp_filter(pid_namespace=protections.pid_namespace, signal_only_self=True)
        return filters.Confinement(ruleset, syscalls)


def _signal_only_self(protections: Protections) -> bool:
    """Neither a PID namespace nor Landlock's signal scope holds an evaluation's signals: it may signal itself only."""
    return not (protections.pid_namespace or protections.landlock_scopes)


def network_shared(protections: Protections) -> bool:
    """Whether evaluations share the template's network namespace (no interface but `lo`, down) rather than each
    making one: only where nothing in it passes between two of them. Abstract unix sockets are its one shared name
    space: Landlock's scope (ABI 6) keeps each evaluation from connecting to another's, and the filter keeps it from
    taking a name at all (bind, and the autobind that passing credentials asks for), so that no name's existence
    (EADDRINUSE, or EPERM against ECONNREFUSED) tells anything either."""
    return protections.landlock and protections.landlock_scopes and protections.seccomp


def evaluation_namespaces(protections: Protections) -> int:
    """The namespaces each evaluation process makes for itself (its PID namespace is made by the template's fork):
    mount (its root, its /proc), and network unless it shares the template's (`network_shared`)."""
    return kernel.CLONE_NEWNS | (0 if network_shared(protections) else kernel.CLONE_NEWNET)


def enter_template_namespaces(*, network: bool) -> None:
    """Once, in the template: the UTS namespace (host name "stepeval") and IPC namespace (no object may be made in
    it) that every evaluation it forks shares, and the network namespace where `network`. An evaluation changes
    none of them: it holds no capability over them (its own uid, or a user namespace below the template's), the
    filter refuses sethostname, setdomainname and every IPC call, and its /proc/sys is read-only."""
    kernel.unshare(SHARED_NAMESPACES | (kernel.CLONE_NEWNET if network else 0))
    socket.sethostname(HOSTNAME.decode())
    for name, value in IPC_LIMITS.items():
        with open(f"/proc/sys/{name}", "w") as limit:
            limit.write(value)


def _confine(
    root: RootBuilder,
    job_paths: list[str],
    limits: Limits,
    uid: int | None,
    protections: Protections,
    confinement: filters.Confinement,
) -> None:
    """The moment before author code runs: only the job's paths left in the root, privileges gone, limits set, the
    Landlock ruleset and the seccomp filter loaded, and still bound to die with the template (a new uid clears the
    parent-death signal: it is set again, then the template is seen to be alive, so that it cannot have died in
    between)."""
    if protections.mount_namespace:
        root.narrow(job_paths)
    in_user_namespace = protections.mode == "userns"
    if in_user_namespace:
        kernel.prctl(kernel.PR_SET_DUMPABLE, 1)  # its own /proc/self/uid_map is writable to it only so
    drop_privileges(uid, user_namespace=in_user_namespace)
    kernel.prctl(kernel.PR_SET_DUMPABLE, 0)
    shared_uid = uid is None and not in_user_namespace
    apply_limits(limits, tasks_before=tasks_of_my_uid() if shared_uid else 0)
    kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
    if len(os.listdir("/proc/self/task")) != 1:  # Landlock and the filter bind the calling thread (and its children)
        os._exit(70)
    confinement.enforce(job_paths, next((path for path in job_paths if path.endswith(".sock")), None))
    if select.select([ALIVE_FD], [], [], 0)[0]:  # EOF: the template is gone
        os._exit(70)
    os.close(ALIVE_FD)


def probe_in_background(allow_namespaces: bool, uid: int, mode: str) -> Callable[[], Protections]:
    """Fork a prober now (before the heavy imports, so that its own forks are light) and return how to wait for
    what it found; meanwhile the template imports and warms."""
    findings, theirs = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(findings)
            os.write(theirs, json.dumps(probe(allow_namespaces, uid, mode).to_message()).encode())
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


def probe(allow_namespaces: bool, uid: int, mode: str) -> Protections:
    """What this machine lets the template do, tried once in a throw-away child. `mode`: `userns` when the
    template made a user namespace of its own to have the others in, else `root` (namespaces are tried as the
    template is)."""
    namespaced = allow_namespaces and _try_in_child(_namespaces_work)
    own_uid = mode == "root" and os.geteuid() == 0 and _try_in_child(lambda: _uid_works(uid, namespaced))
    landlock = filters.landlock_abi() > 0 and _try_in_child(_landlock_works)
    return Protections(
        mode=mode if namespaced else "none",
        fresh_process=True,
        pid_namespace=namespaced,
        mount_namespace=namespaced,
        network_namespace=namespaced,
        ipc_uts_namespaces=namespaced,
        own_uid=own_uid,
        no_new_privs=_try_in_child(lambda: kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)),
        rlimits=True,
        seccomp=filters.seccomp_available() and _try_in_child(_seccomp_works),
        landlock=landlock,
        landlock_scopes=landlock and filters.landlock_scopes_signals(),  # enforced with the ruleset, or not at all
        non_dumpable=kernel.prctl_get(kernel.PR_GET_DUMPABLE) == 0,
    )


def _seccomp_works() -> None:
    kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
    filters.seccomp_filter(pid_namespace=False, signal_only_self=True).load()
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
    except OSError:
        return
    raise OSError("the filter let an AF_INET socket through")


def _landlock_works() -> None:
    kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
    filters.Confinement(filters.landlock_ruleset(interpreter_paths(), []), None).enforce([], None)
    try:
        os.listdir("/proc")
    except PermissionError:
        return
    raise OSError("Landlock let /proc be read")


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
    kernel.unshare(kernel.CLONE_NEWPID)
    enter_template_namespaces(network=True)
    where = tempfile.mkdtemp(prefix="stepeval-probe-")
    try:
        if not _try_in_child(lambda: _root_works(where)):
            raise OSError("cannot build a root")
    finally:
        os.rmdir(where)


def _root_works(where: str) -> None:
    kernel.unshare(kernel.CLONE_NEWNS | kernel.CLONE_NEWNET)  # the most an evaluation makes for itself
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
    parser = argparse.ArgumentParser(prog="harness.sandbox.template")
    parser.add_argument("control_fd", type=int)
    parser.add_argument("--no-namespaces", action="store_true")
    parser.add_argument("--uid-probe", type=int, default=UID_BASE)
    parser.add_argument("--loads-only", action="store_true")
    parser.add_argument("--small-pages", action="store_true")  # it forks once: its memory not collapsed
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
    userns = not args.no_namespaces and os.geteuid() != 0 and _own_user_namespace(args.control_fd)
    mode = "userns" if userns else "root"
    kernel.prctl(kernel.PR_SET_DUMPABLE, 0)  # no process of its uid reads or writes its memory (a module's neither)
    with contextlib.suppress(OSError):
        kernel.prctl(kernel.PR_SET_CHILD_SUBREAPER, 1)  # what a module's processes leave comes to it, to be killed
    filters.seccomp_available(), filters.landlock_abi()  # their libraries found now, never in an evaluation
    protections_found = probe_in_background(not args.no_namespaces, args.uid_probe, mode)
    # boto3, botocore's data, the kit: what every evaluation would otherwise import (for a pool that only loads
    # modules, the kit and the job's frame only: harness.inside.job)
    with collections_paused():
        worker = importlib.import_module("harness.inside.job" if args.loads_only else "harness.inside.worker")
        for module in args.preload:
            importlib.import_module(module)
        worker.prepare()
        worker.warm_services([tuple(pair.split(":", 1)) for pair in args.warm if ":" in pair], [])
    protections = dataclasses.replace(protections_found(), subreaper=kernel.is_child_subreaper())  # not inherited
    if protections.pid_namespace:  # the prober made these in its child: the template may
        enter_template_namespaces(network=network_shared(protections))
    root_dir = tempfile.mkdtemp(prefix="stepeval-root-")
    try:
        try:
            control.send(json.dumps({"ready": True, "protections": protections.to_message()}).encode())
        except OSError:  # the pool is gone already (a command that stopped at bad input): nothing to serve
            return 0
        template = Template(control, protections, root_dir, worker, huge_pages=not args.small_pages)
        try:
            template.serve()
        finally:
            template.end()
    finally:
        shutil.rmtree(root_dir, ignore_errors=True)
    return 0


def _own_user_namespace(control_fd: int) -> bool:
    """Enter a user namespace of its own, as its root (an unprivileged user's way to the other namespaces), and a
    PID namespace it owns: the template goes on as its PID 1, so that it may come back to it after each fork into
    a new one (setns needs a capability over the namespace's owner). The process the pool started waits for it,
    so the pool sees the template end; the template dies with that process."""
    try:
        enter_user_namespace(0, 0)
        kernel.unshare(kernel.CLONE_NEWPID | kernel.CLONE_NEWNS)
    except OSError as exc:
        logging.getLogger(__name__).debug("no user namespace: %s", exc)
        return False
    pid = os.fork()
    if pid:
        os.close(control_fd)
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
    kernel.mount(None, "/", None, kernel.MS_REC | kernel.MS_PRIVATE)
    kernel.mount("proc", "/proc", "proc", kernel.MS_NOSUID | kernel.MS_NODEV | kernel.MS_NOEXEC)  # its own pids
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
