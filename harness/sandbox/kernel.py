"""The few Linux system calls Python 3.11's `os` lacks (unshare, setns, mount, umount2, pivot_root, prctl,
capset, loading a seccomp program, madvise of any range), via ctypes."""

from __future__ import annotations

import ctypes
import os
from functools import cache

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWCGROUP = 0x02000000
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
PR_GET_DUMPABLE = 3
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
BPF_INSTRUCTION_BYTES = 8  # struct sock_filter
_LINUX_CAPABILITY_VERSION_3 = 0x20080522

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


def madvise(start: int, length: int, advice: int) -> None:
    """madvise(2) over any page-aligned range of this process (Python's own covers only its `mmap` objects)."""
    _check(libc().madvise(ctypes.c_void_p(start), ctypes.c_size_t(length), advice), f"madvise {advice}")


def prctl(option: int, arg: int) -> None:
    _check(libc().prctl(option, ctypes.c_ulong(arg), 0, 0, 0), f"prctl {option}")


def prctl_get(option: int) -> int:
    """A prctl whose answer is its return value (PR_GET_DUMPABLE...)."""
    result = libc().prctl(option, 0, 0, 0, 0)
    if result < 0:
        _check(result, f"prctl {option}")
    return result


def is_child_subreaper() -> bool:
    value = ctypes.c_int(0)
    _check(libc().prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(value), 0, 0, 0), "prctl PR_GET_CHILD_SUBREAPER")
    return value.value == 1


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities() -> None:
    """Empty this process's effective, permitted and inheritable capability sets (capset(2))."""
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(libc().capset(ctypes.byref(header), data), "capset")


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def load_seccomp_program(program: bytes) -> None:
    """Load a seccomp filter compiled to BPF (as libseccomp's `seccomp_load` does with the defaults: prctl
    PR_SET_SECCOMP, SECCOMP_MODE_FILTER; no_new_privs must be set first)."""
    if not program or len(program) % BPF_INSTRUCTION_BYTES:
        raise ValueError("not a BPF program")
    instructions = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // BPF_INSTRUCTION_BYTES, ctypes.cast(instructions, ctypes.c_void_p))
    _check(libc().prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "prctl PR_SET_SECCOMP")
