"""Confinement of one evaluation process with the kernel's own tools: namespaces, a read-only root, a uid.

`Protections` says which layers this machine allows (probed once, by the template). The template forks each
evaluation process into a new PID namespace; the process (PID 1 there) enters its other namespaces, builds its
root (`RootBuilder.prepare`) and enters it with what jobs may need (`enter`) before its job; when the job arrives
it keeps only what the job names (`narrow`) and drops privileges (`drop_privileges`). Nothing of the host is
visible inside but the read-only binds listed here.
"""

from __future__ import annotations

import os
import site
import socket
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
NAMESPACES = kernel.CLONE_NEWNS | kernel.CLONE_NEWPID | kernel.CLONE_NEWIPC | kernel.CLONE_NEWUTS
HOSTNAME = b"stepeval"


@dataclass(frozen=True)
class Protections:
    """Which layers confine evaluation processes on this machine (each True when in force)."""

    fresh_process: bool = False  # a process of its own per evaluation, forked from the clean template
    pid_namespace: bool = False  # cannot see or signal anything outside; its whole tree dies with it
    mount_namespace: bool = False  # a read-only root of the interpreter and the lab's modules only (pivot_root)
    network_namespace: bool = False  # no network at all: the gateway's unix socket is its only way out
    ipc_uts_namespaces: bool = False
    own_uid: bool = False  # an unprivileged uid per live evaluation (RLIMIT_NPROC counts only its own)
    no_new_privs: bool = False
    rlimits: bool = False  # memory, CPU, processes, no core, no file writes

    @property
    def full(self) -> bool:
        return all(getattr(self, f.name) for f in fields(self))

    def missing(self) -> list[str]:
        return [f.name for f in fields(self) if not getattr(self, f.name)]

    def notice(self) -> str | None:
        """One line naming the protections that are off, or None when every one is on."""
        if self.full:
            return None
        return (
            f"sandbox degraded: off: {', '.join(self.missing())} (each evaluation still runs in a fresh process"
            " with rlimits and the read-only guard; docs/dev.md, 'Isolation')"
        )

    def to_message(self) -> dict[str, bool]:
        return asdict(self)

    @classmethod
    def from_message(cls, raw: dict[str, Any]) -> Protections:
        return cls(**{f.name: bool(raw.get(f.name)) for f in fields(cls)})


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

    def prepare(self, paths: list[str]) -> None:
        """Everything but the job's own paths: the interpreter, devices, a fresh /proc."""
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
        kernel.mount("proc", self._inside("/proc"), "proc", kernel.MS_NOSUID | kernel.MS_NODEV | kernel.MS_NOEXEC)
        os.makedirs(self._inside("/tmp"), mode=0o755, exist_ok=True)  # there already when a bound path is under /tmp
        socket.sethostname(HOSTNAME.decode())

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


def drop_privileges(uid: int | None) -> None:
    """Become `uid` (no groups, gid = uid) if given; never regain privileges (no setuid binaries, no caps)."""
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
