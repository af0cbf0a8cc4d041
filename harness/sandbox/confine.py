"""Confinement of one evaluation process with the kernel's own tools: namespaces, a read-only root, a uid.

`Protections` says which layers this machine allows (probed once, by the template), in one of three modes:
`root` (the template may make namespaces as it is), `userns` (an unprivileged user, in a user namespace of its
own that gives it the others) and `none` (no namespace at all: AWS Lambda, a default container profile). With
namespaces the template forks each evaluation process into a new PID namespace; the process (PID 1 there) enters
its other namespaces, builds its root (`RootBuilder.prepare`) and enters it with what jobs may need (`enter`)
before its job; when the job arrives it keeps only what the job names (`narrow`) and drops privileges
(`drop_privileges`). Nothing of the host is visible inside but the read-only binds listed here. In every mode it
then loads the Landlock ruleset and the seccomp filter (harness/sandbox/filters.py).
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from harness.core.paths import covered
from harness.sandbox import kernel

UID_BASE = 1_500_000_000  # far from any real account; one uid per live evaluation process
UID_SPAN = 100_000
UID_BASE_ENV = "STEPEVAL_UID_BASE"
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
SYSTEM_LIBRARIES = ("/usr/lib", "/usr/lib64", "/usr/local/lib")
LIBRARY_LINKS = {"/lib": "usr/lib", "/lib64": "usr/lib64"}  # merged-/usr systems
# Made once by the template and shared by the evaluations it forks (each makes its own PID and mount namespaces,
# and its network namespace where it may not share the template's): docs/decisions/0026-namespaces-per-template.md
SHARED_NAMESPACES = kernel.CLONE_NEWUTS | kernel.CLONE_NEWIPC
HOSTNAME = b"stepeval"
PROC_FLAGS = kernel.MS_NOSUID | kernel.MS_NODEV | kernel.MS_NOEXEC


MODES = ("root", "userns", "none")
# What no evaluation runs without: `stepeval serve` and the Lambda handler refuse to start below it.
MINIMUM = ("fresh_process", "non_dumpable", "seccomp", "no_new_privs", "rlimits", "subreaper")
# Off, felt only between evaluations running at once under one uid: the service's concern, not one author's run
SHARED_ONLY = ("own_uid",)
# What each layer, when off, leaves open (the service says it at start; docs/service.md has the table); layers
# that another one stands in for are said in `Protections.gaps`.
GAPS = {
    "network_namespace": "a module may connect to unix sockets the service's uid may write (pathname ones)",
    "ipc_uts_namespaces": "a module sees the host's name",
    "own_uid": (
        "evaluations share the service's uid, and what the kernel counts per uid: one's processes, pipe pages (past"
        " fs.pipe-user-pages-soft a new pipe is 8 KiB), descriptors in flight (past a sender's RLIMIT_NOFILE its"
        " passing is refused) and pending signals (past RLIMIT_SIGPENDING, counted up the user namespaces) are felt"
        " by another running at once, which may count them"
    ),
    "seccomp": (
        "a module may open network sockets, trace, signal, renice or limit processes of its uid, change its files'"
        " modes, times and extended attributes, and hold SysV shared memory"
    ),
    "non_dumpable": "a module may read the harness's memory and environment where it shares its uid",
    "subreaper": "what a module's processes leave may outlive its answer",
    "rlimits": "a module may exhaust memory, CPU, processes and files",
}

# What no mode stops, and why: what evaluations running at once share (the CPU, the machine's memory and its count
# of pids), and what a later evaluation may time of what an earlier one did. What the gateway loads is not among
# them: the services the labs name are read whole before their evaluations, any other into the evaluation's own
# cache (sandbox/models.py).
SHARED_CHANNELS = (
    "evaluations running at once share the CPU, the gateway and the AWS endpoint: one may slow another, which may"
    " time it",
    "the kernel's page cache, which every process shares: a module that reads a file of its read-only root (a"
    " package, a botocore model), or makes the gateway read a model no lab names, makes it quicker to read for a"
    " later evaluation until the kernel drops it: one may time whether another read it",
    "the gateway keeps each account's connections to the AWS endpoints, as a connection's handshake is slow: a"
    " module may tell a later evaluation of the same account (never of another) which endpoints it called",
    "the machine's memory, which every process shares: sysinfo and /proc/meminfo are refused, but a module that"
    " holds much of it makes another's allocations slower (the kernel reclaims) or refused at its own limit: one"
    " may time or count it",
    "the machine's count of the pids it makes, which a pidfd's inode number is: one may count the tasks another"
    " starts (socket cookies, another such count, are refused by the filter)",
    "what the gateway's libraries keep of their last inputs (Python's URL splitting, the shapes of a recursive"
    " structure below its first repetition in a model the labs name): each worth microseconds to a later"
    " evaluation, against the milliseconds of a request through the gateway",
)


@dataclass(frozen=True)
class Protections:
    """Which layers confine evaluation processes on this machine (each True when in force), and the mode."""

    mode: str = "none"  # root | userns | none: how the namespaces below are had, if they are
    fresh_process: bool = False  # a process of its own per evaluation, forked from the clean template
    pid_namespace: bool = False  # cannot see or signal anything outside; its whole tree dies with it
    mount_namespace: bool = False  # a read-only root of the interpreter and the lab's modules only (pivot_root)
    # no network at all: the gateway's unix socket is its only way out (a network namespace of its own, or the
    # template's where Landlock's scope and the filter keep abstract sockets apart: template.network_shared)
    network_namespace: bool = False
    ipc_uts_namespaces: bool = False  # the template's own IPC (no object may be made) and UTS (host name) namespaces
    own_uid: bool = False  # an unprivileged uid per live evaluation (RLIMIT_NPROC counts only its own)
    no_new_privs: bool = False
    rlimits: bool = False  # memory, CPU, processes and threads, files, no core, no file growth, no mqueue
    seccomp: bool = False  # the syscall filter: AF_UNIX only, no ptrace, no namespace or mount calls, no SysV shm
    landlock: bool = False  # reads only the interpreter and its lab, writes nothing
    landlock_scopes: bool = False  # its signals and abstract sockets stay inside it (Landlock ABI 6)
    non_dumpable: bool = False  # the harness and the template: no same-uid process reads their memory or environ
    subreaper: bool = False  # the template adopts whatever a module's processes leave, and kills it

    @property
    def full(self) -> bool:
        return not self.missing()

    @property
    def sufficient(self) -> bool:
        """The minimum set holds (MINIMUM): the service may start."""
        return all(getattr(self, name) for name in MINIMUM)

    def missing(self) -> list[str]:
        """The protections off, but Landlock's scopes where a PID namespace holds signals already."""
        return [
            f.name
            for f in fields(self)
            if f.name != "mode"
            and not getattr(self, f.name)
            and not (f.name == "landlock_scopes" and self.pid_namespace)
        ]

    def gaps(self) -> list[str]:
        """What this mode cannot stop, one phrase each."""
        said = []
        if not (self.mount_namespace or self.landlock):
            said.append(
                "a module reads every file the service's uid may read, truncates or removes those it may write, and"
                " may leave empty files and directories where it may write, which a later evaluation finds"
            )
        if self.landlock and not self.mount_namespace:
            said.append(
                "a module may learn whether a path outside its reach exists, its size, owner and times (stat), and"
                " read its extended attributes: Landlock governs no file's metadata"
            )
        if not (self.pid_namespace or self.landlock):
            said.append("a module sees the host's processes and their command lines")
        elif not self.pid_namespace:
            said.append("a module may learn which process ids exist on the host (kill and pidfd_open answer so)")
        if not (self.pid_namespace or self.landlock_scopes):
            said.append("a module may signal only its own process, not its children")
        return said + [GAPS[name] for name in self.missing() if name in GAPS] + list(SHARED_CHANNELS)

    def notice(self) -> str | None:
        """The one short line `stepeval test` and `run` print: the mode and the protections off that matter to the
        one running it; None when none does. `own_uid` is left out: only evaluations running at once under one uid
        (a service's) feel each other's process counts and locks. The service's first log line says everything."""
        off = [name for name in self.missing() if name not in SHARED_ONLY]
        if not off:
            return None
        return f"sandbox mode {self.mode}: off: {', '.join(off)} (docs/service.md, 'What each mode protects')"

    def to_message(self) -> dict[str, Any]:
        return asdict(self)

    def log_fields(self) -> dict[str, Any]:
        """The first log line's fields: the mode, each protection on and off, what the mode cannot stop."""
        on = [f.name for f in fields(self) if f.name != "mode" and getattr(self, f.name)]
        return {"mode": self.mode, "on": on, "off": self.missing(), "cannot_stop": self.gaps()}

    def summary(self) -> dict[str, Any]:
        """What /healthz says: the mode, each protection, whether all or the minimum set hold, what it cannot stop."""
        return {**asdict(self), "full": self.full, "sufficient": self.sufficient, "cannot_stop": self.gaps()}

    @classmethod
    def from_message(cls, raw: dict[str, Any]) -> Protections:
        mode = raw.get("mode")
        flags = {f.name: bool(raw.get(f.name)) for f in fields(cls) if f.name != "mode"}
        return cls(mode=mode if mode in MODES else "none", **flags)


def interpreter_paths() -> list[str]:
    """What Python needs to import anything more: the stdlib, the environment's packages, the interpreter, and
    the harness package (only that directory of a checkout: never the working directory or the repository)."""
    paths = {sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths |= set(site.getsitepackages())
    paths |= {os.path.dirname(sys.executable), os.path.dirname(os.path.realpath(sys.executable))}
    paths.add(os.path.join(sys.base_prefix, "lib"))  # libpython, for the interpreter a subprocess would start
    paths.add(str(Path(__file__).resolve().parents[1]))
    paths.add(os.path.join(sys.prefix, "pyvenv.cfg"))  # a virtual environment's interpreter reads it at start
    return _outermost({os.path.realpath(p) for p in paths if p and os.path.exists(p)})


def _outermost(paths: set[str]) -> list[str]:
    kept: list[str] = []
    for path in sorted(paths):
        if not any(path == k or path.startswith(k + os.sep) for k in kept):
            kept.append(path)
    return kept


class RootBuilder:
    """A new root on a small tmpfs at `where`, holding read-only binds of host paths at the same paths."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.ahead: list[str] = []  # bound by `enter` for the jobs to come: what `narrow` may take away

    def _inside(self, path: str) -> str:
        return self.where + path

    def bind(self, source: str, *, writable: bool = False) -> None:
        """Bind `source` (a file or directory) read-only at the same path inside."""
        target = self._inside(source)
        if os.path.isdir(source):
            os.makedirs(target, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if not os.path.exists(target):
                os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
        kernel.mount(source, target, None, kernel.MS_BIND | kernel.MS_REC)
        flags = kernel.MS_BIND | kernel.MS_REMOUNT | kernel.MS_NOSUID
        if not writable:
            flags |= kernel.MS_RDONLY
        if not source.startswith("/dev/"):
            flags |= kernel.MS_NODEV
        kernel.mount(None, target, None, flags)

    def prepare(self, paths: list[str], *, sysctls_read_only: bool = True) -> None:
        """Everything but the job's own paths: the interpreter, devices, a fresh /proc; its /proc/sys read-only where
        `sysctls_read_only` (where Landlock holds, it refuses every write there already)."""
        kernel.mount(None, "/", None, kernel.MS_REC | kernel.MS_PRIVATE)
        kernel.mount("tmpfs", self.where, "tmpfs", kernel.MS_NOSUID | kernel.MS_NODEV, "size=256k,mode=0755")
        for path in [*paths, *SYSTEM_LIBRARIES]:
            if os.path.exists(path):
                self.bind(path)
        for link, target in LIBRARY_LINKS.items():
            if os.path.islink(link) and not os.path.lexists(self._inside(link)):
                os.symlink(target, self._inside(link))
        for device in DEVICES:
            if os.path.exists(device):
                self.bind(device, writable=True)
        os.makedirs(self._inside("/proc"))
        kernel.mount("proc", self._inside("/proc"), "proc", PROC_FLAGS)
        if sysctls_read_only:
            # the IPC, UTS and network settings of namespaces it shares with other evaluations are no channel between
            # them (in mode userns their owner is the evaluation's uid outside; ~0.1 ms, hence only without Landlock)
            proc_sys = self._inside("/proc/sys")
            kernel.mount(proc_sys, proc_sys, None, kernel.MS_BIND | kernel.MS_REC)
            kernel.mount(None, proc_sys, None, kernel.MS_BIND | kernel.MS_REMOUNT | kernel.MS_RDONLY | PROC_FLAGS)
        os.makedirs(self._inside("/tmp"), mode=0o755, exist_ok=True)  # there already when a bound path is under /tmp

    def enter(self, ahead: list[str]) -> None:
        """Bind `ahead` (what the coming job may need: the gateway's directory, the labs expected), then make the
        new root the only one (pivot_root) and read-only. Done before the job, off its way."""
        for path in ahead:
            if os.path.exists(path):
                self.bind(path)
                self.ahead.append(path)
        old = self._inside("/.old")
        os.mkdir(old)
        kernel.pivot_root(self.where, old)
        os.chdir("/")
        kernel.umount2("/.old", kernel.MNT_DETACH)
        os.rmdir("/.old")
        kernel.mount(None, "/", None, kernel.MS_BIND | kernel.MS_REMOUNT | kernel.MS_RDONLY | kernel.MS_NOSUID)

    def narrow(self, needed: list[str]) -> None:
        """At the job: what was bound ahead for other jobs goes away (the pool gives a job only a process whose
        root holds what it needs; a path it lacks is simply not there)."""
        for path in self.ahead:
            if not any(covered(need, [path]) for need in needed):
                kernel.umount2(path, kernel.MNT_DETACH)


def uid_base() -> int:
    """Where this harness process's evaluation uids start: STEPEVAL_UID_BASE, else UID_BASE."""
    return int(os.environ.get(UID_BASE_ENV) or UID_BASE)


def drop_privileges(uid: int | None, *, user_namespace: bool = False) -> None:
    """Become `uid` (no groups, gid = uid) if given; in a user namespace without one, move into a user namespace of
    its own (so that RLIMIT_NPROC counts its own tasks only) with no capability left; never regain privileges (no
    setuid binaries, no caps)."""
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    elif user_namespace:
        enter_user_namespace(0, 0)
        kernel.drop_capabilities()
    kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)


def enter_user_namespace(uid: int, gid: int) -> None:
    """unshare(CLONE_NEWUSER), this process's uid and gid mapped to `uid` and `gid` inside (and only they): the
    caps it holds there reach only what the new namespace owns."""
    outside_uid, outside_gid = os.geteuid(), os.getegid()
    kernel.unshare(kernel.CLONE_NEWUSER)
    for name, text in (
        ("setgroups", "deny"),
        ("uid_map", f"{uid} {outside_uid} 1"),
        ("gid_map", f"{gid} {outside_gid} 1"),
    ):
        with open(f"/proc/self/{name}", "w") as mapping:
            mapping.write(text)


def tasks_of_my_uid() -> int:
    """Processes and threads of this process's uid (what RLIMIT_NPROC counts where the uid is shared)."""
    uid = os.getuid()
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(os.path.join(entry.path, "task")))
            except OSError:
                continue
    return count
