"""The few Linux system calls Python 3.11's `os` lacks (unshare, setns, mount, umount2, pivot_root, prctl), via
ctypes."""

from __future__ import annotations

import ctypes
import os
from functools import cache

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38

SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}


@cache
def libc() -> ctypes.CDLL:
    """The C library the interpreter is linked with (`dlopen(NULL)`: no `ctypes.util.find_library`, which runs
    `ldconfig -p`, ~2 ms of every template's start)."""
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def unshare(flags: int) -> None:
    """Move this process into new namespaces (the PID namespace applies to its next child)."""
    _check(libc().unshare(flags), "unshare")


def setns(fd: int, nstype: int) -> None:
    """Join the namespace `fd` names (for CLONE_NEWPID: the one this process's next children are born in)."""
    _check(libc().setns(fd, nstype), "setns")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    """mount(2); strings are encoded with the filesystem encoding."""

    def raw(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)

    _check(libc().mount(raw(source), raw(target), raw(fstype), ctypes.c_ulong(flags), raw(data)), f"mount {target}")


def umount2(target: str, flags: int) -> None:
    _check(libc().umount2(os.fsencode(target), flags), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    number = SYS_PIVOT_ROOT[os.uname().machine]
    _check(libc().syscall(number, os.fsencode(new_root), os.fsencode(put_old)), "pivot_root")


def prctl(option: int, arg: int) -> None:
    _check(libc().prctl(option, ctypes.c_ulong(arg), 0, 0, 0), f"prctl {option}")
