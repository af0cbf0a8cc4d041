"""What an evaluation process may still ask of the kernel once its module runs, in every mode: a seccomp filter
(built by libseccomp through pyseccomp, never hand-written BPF) and a Landlock ruleset (landlockpy).

The seccomp filter refuses every socket family but AF_UNIX (the gateway's socket is the only way out), reading or
writing other processes (ptrace, process_vm_*), the calls that change namespaces, mounts or the root, the kernel's
larger attack surfaces (bpf, io_uring, userfaultfd, perf_event_open, keyrings), memory that no rlimit counts (SysV
shared memory and message queues, POSIX message queues, growing a pipe) and every other SysV or POSIX IPC call, the
host name, a name in the abstract unix socket space (bind, and the autobind of passing credentials), leaving its
process group (setsid, setpgid) and becoming dumpable again; a file's mode, owner, times and extended attributes,
watching files and listing mounts (what Landlock does not govern); a priority, CPU affinity, scheduling, rlimit or
I/O priority of any process but its own; where no PID namespace holds its signals, it may signal only itself. The
Landlock ruleset lets it read and execute only what it was given (the interpreter, the lab's modules), write
nothing, connect and bind no TCP port, and (ABI 6+) signal nothing and reach no abstract socket outside itself.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
from dataclasses import dataclass
from functools import cache
from typing import Any

from harness.sandbox import kernel

REFUSED_CALLS = (
    # other processes: their memory and their control
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    "pidfd_send_signal",
    "process_madvise",  # a pidfd's process is not in the call: no filter can tell it is its own
    "process_mrelease",
    "kcmp",
    # namespaces, mounts, the root
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "open_tree_attr",
    "open_by_handle_at",
    "name_to_handle_at",
    # the kernel's larger surfaces
    "bpf",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "userfaultfd",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "syslog",
    "personality",
    # memory no rlimit counts: SysV shared memory (a segment outlives its attachment), message queues, semaphores;
    # and every other SysV and POSIX IPC call, as evaluations share the template's IPC namespace (docs/decisions/0026)
    "shmget",
    "shmat",
    "shmctl",
    "shmdt",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    # the host name of the UTS namespace evaluations share (a capability would be needed too: defence in depth)
    "sethostname",
    "setdomainname",
    # a name in the abstract unix socket space of a network namespace evaluations may share: its existence alone
    # (EADDRINUSE, EPERM from Landlock's scope against ECONNREFUSED) would pass bits; a pathname socket needs a
    # directory it may write, which it has not (the gateway's socket is connected to, never bound)
    "bind",
    # a file's metadata, which Landlock does not govern: on the files of its uid (the gateway's directory and socket,
    # ~/.aws, the working directory, in mode none) a mode, an owner, times or an extended attribute would outlive it
    "chmod",
    "fchmod",
    "fchmodat",
    "fchmodat2",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "setxattrat",
    "removexattr",
    "lremovexattr",
    "fremovexattr",
    "removexattrat",
    "file_setattr",
    # the host seen past Landlock: files watched (their reads and writes by others), the mount table
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "fanotify_init",
    "fanotify_mark",
    "listmount",
    "statmount",
    # a lock on a file every evaluation may open read-only (the standard library's) is a channel between two
    # running at once (issue 31: a 16-character tag passed by flock); fcntl's locks are refused below
    "flock",
    # the machine's free memory, load and process count, which every evaluation moves and reads (issue 31: 8 bits a
    # second passed by holding memory), as /proc/meminfo already is
    "sysinfo",
)
# Calls newer than the libseccomp of some distributions, by their numbers (the same on every architecture since
# Linux 5.1), so that an older libseccomp still refuses them.
NEWER_CALLS = {
    "fchmodat2": 452,
    "statmount": 457,
    "listmount": 458,
    "setxattrat": 463,
    "removexattrat": 466,
    "open_tree_attr": 467,
    "file_setattr": 469,
}
# Calls that name a process by its pid (first argument): only itself may be named. Another process of its uid (the
# service, the template, the next evaluation, in mode none) must not be reniced, pinned, given a scheduling policy
# or an rlimit (RLIMIT_CPU of 1 s kills it), nor probed (which of the host's pids exist). pidfd_open stays (asyncio may
# wait for its children by pidfd): what a pidfd could do to another process is refused above.
OWN_PID_CALLS = (
    "sched_setaffinity",
    "sched_getaffinity",
    "sched_setscheduler",
    "sched_getscheduler",
    "sched_setparam",
    "sched_getparam",
    "sched_setattr",
    "sched_getattr",
    "sched_rr_get_interval",
    "prlimit64",
    "get_robust_list",
    "migrate_pages",
    "move_pages",
    "getpgid",
    "getsid",
)
# Calls whose first argument says what the second names (a process, a process group, a user): only "a process",
# and only its own. PRIO_USER with 0 is every process of its uid.
PRIO_PROCESS = 0
IOPRIO_WHO_PROCESS = 1
WHICH_WHO_CALLS = {
    "setpriority": PRIO_PROCESS,
    "getpriority": PRIO_PROCESS,
    "ioprio_set": IOPRIO_WHO_PROCESS,
    "ioprio_get": IOPRIO_WHO_PROCESS,
}
GROUP_CALLS = ("setsid", "setpgid")  # where no PID namespace holds its tree, its process group is how it is killed
NAMESPACE_FLAGS = (
    kernel.CLONE_NEWNS,
    kernel.CLONE_NEWUTS,
    kernel.CLONE_NEWIPC,
    kernel.CLONE_NEWUSER,
    kernel.CLONE_NEWPID,
    kernel.CLONE_NEWNET,
    kernel.CLONE_NEWCGROUP,
)
PR_SET_DUMPABLE = 4
SOL_SOCKET = 1
# Passing credentials (SO_PASSCRED, SO_PASSPIDFD) makes the kernel bind a unix socket to an abstract name of its
# choosing at its first connect or send (autobind): refused with bind
AUTOBINDING_OPTIONS = (16, 76)
# A socket's cookie (SO_COOKIE) is the kernel's machine-wide count of the sockets asked for one: two reads say how
# many any process asked for in between (no library of an evaluation asks): refused with getsockopt
SO_COOKIE = 57
F_SETPIPE_SZ = 1031
# fcntl commands that lock, lease or watch a file (F_GETLK .. F_SETLKW, F_OFD_*, F_SETLEASE, F_GETLEASE, F_NOTIFY):
# each is seen by another process holding the same file
LOCKING_COMMANDS = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
INT_BITS = 0xFFFFFFFF  # an int argument: the kernel reads its low 32 bits only, so the filter must too
LANDLOCK_SCOPE_ABI = 6


@cache
def seccomp_available() -> bool:
    """libseccomp loads (pyseccomp finds it with ctypes) and this kernel has seccomp filters."""
    try:
        import pyseccomp  # noqa: F401  (imported for its check that libseccomp is there)
    except (ImportError, RuntimeError, OSError):
        return False
    with open("/proc/self/status", "rb") as status:
        return any(line.startswith(b"Seccomp:") for line in status)


def seccomp_filter(*, pid_namespace: bool, signal_only_self: bool) -> Any:
    """The filter, built (not loaded: `load()` it, with no_new_privs set first; everything the process starts
    inherits it). Its calls that name a process may name only itself: by 0 (as the C library does), or by 1 where
    `pid_namespace` makes it PID 1 of its own (libseccomp compares an argument once per rule: "0 or its pid" is
    one rule only where its pid is 1). Without a PID namespace to hold its tree, neither it nor its children may
    leave its process group (setsid, setpgid). `signal_only_self`: nor does a Landlock signal scope hold its
    signals, so kill and its kin may target only the process that builds it (a module's children are killed with
    it; kill(0) and kill(-1) are refused)."""
    import pyseccomp as sc

    refuse = sc.ERRNO(errno.EPERM)
    rules = sc.SyscallFilter(sc.ALLOW)
    for name in REFUSED_CALLS + (() if pid_namespace else GROUP_CALLS):
        rules.add_rule(refuse, _number(sc, name))
    rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")  # its flags sit in memory no filter reads: glibc falls back
    for flag in NAMESPACE_FLAGS:  # a new namespace by clone: one rule per flag (each is refused alone)
        rules.add_rule(refuse, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    for family_call in ("socket", "socketpair"):
        rules.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), family_call, sc.Arg(0, sc.NE, socket.AF_UNIX))
    rules.add_rule(refuse, "prctl", sc.Arg(0, sc.MASKED_EQ, INT_BITS, PR_SET_DUMPABLE))
    for option in AUTOBINDING_OPTIONS:
        rules.add_rule(
            refuse,
            "setsockopt",
            sc.Arg(1, sc.MASKED_EQ, INT_BITS, SOL_SOCKET),
            sc.Arg(2, sc.MASKED_EQ, INT_BITS, option),
        )
    rules.add_rule(
        refuse,
        "getsockopt",
        sc.Arg(1, sc.MASKED_EQ, INT_BITS, SOL_SOCKET),
        sc.Arg(2, sc.MASKED_EQ, INT_BITS, SO_COOKIE),
    )
    for command in (F_SETPIPE_SZ, *LOCKING_COMMANDS):
        rules.add_rule(refuse, "fcntl", sc.Arg(1, sc.MASKED_EQ, INT_BITS, command))
    another = (sc.GT, 1) if pid_namespace else (sc.NE, 0)  # a pid that is not its own
    for call in OWN_PID_CALLS:
        rules.add_rule(refuse, call, sc.Arg(0, *another))
    for call, process in WHICH_WHO_CALLS.items():
        rules.add_rule(refuse, call, sc.Arg(0, sc.NE, process))
        rules.add_rule(refuse, call, sc.Arg(1, *another))
    if signal_only_self:
        me = os.getpid()
        for call in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
            rules.add_rule(refuse, call, sc.Arg(0, sc.NE, me))
        rules.add_rule(refuse, "tkill")
    return rules


@dataclass(frozen=True)
class CompiledFilter:
    """A filter libseccomp built and compiled to BPF once, in the template: each evaluation process loads the same
    program with one prctl instead of having libseccomp compile the same rules again (~0.3 ms of CPU each)."""

    program: bytes

    def load(self) -> None:
        """Load it in this process (no_new_privs set first); everything it starts inherits it."""
        kernel.load_seccomp_program(self.program)


def compiled(rules: Any) -> CompiledFilter:
    """`rules` (a `seccomp_filter`) as the BPF program libseccomp's own load would hand the kernel."""
    with tempfile.TemporaryFile() as exported:
        rules.export_bpf(exported)
        exported.seek(0)
        return CompiledFilter(exported.read())


def _number(sc: Any, name: str) -> int | str:
    """The call by name where this libseccomp knows it, else by its number."""
    return NEWER_CALLS[name] if name in NEWER_CALLS and sc.resolve_syscall(sc.Arch.NATIVE, name) < 0 else name


@cache
def landlock_abi() -> int:
    """The Landlock ABI this kernel offers (0: none, or disabled at boot)."""
    try:
        from landlockpy import abi_version
    except ImportError:
        return 0
    try:
        return abi_version()
    except OSError:
        return 0


def landlock_scopes_signals() -> bool:
    """Landlock keeps a process's signals inside its own domain here (ABI 6, Linux 6.12)."""
    return landlock_abi() >= LANDLOCK_SCOPE_ABI


def landlock_ruleset(readable: list[str], devices: list[str]) -> Any:
    """A ruleset (not enforced: see `Confinement`) under which a process reads and executes only `readable`, reads
    and writes only `devices` (/dev/null...), writes, creates or removes nothing else, uses no TCP port, and
    (ABI 6+) signals and reaches abstract sockets only inside its own domain."""
    from landlockpy import AccessFS, AccessNet, Ruleset, Scope

    rules = Ruleset(
        scoped=Scope.SIGNAL | Scope.ABSTRACT_UNIX_SOCKET, handled_net=AccessNet.BIND_TCP | AccessNet.CONNECT_TCP
    )
    allow_reading(rules, readable)
    for device in devices:
        if os.path.exists(device):
            rules.allow_path(device, AccessFS.READ_FILE | AccessFS.WRITE_FILE)
    return rules


def allow_reading(rules: Any, paths: list[str]) -> None:
    from landlockpy import AccessFS

    read = AccessFS.READ_FILE | AccessFS.EXECUTE
    for path in paths:
        if os.path.exists(path):
            rules.allow_path(path, read | AccessFS.READ_DIR if os.path.isdir(path) else read)


class Confinement:
    """The Landlock ruleset and the seccomp filter of one evaluation process, built before its job (in the spare,
    or once in the template where nothing in them is the process's own: off the job's way) and enforced at it."""

    def __init__(self, ruleset: Any | None, syscalls: Any | None) -> None:
        self.ruleset = ruleset
        self.syscalls = syscalls

    def enforce(self, job_paths: list[str], gateway: str | None) -> None:
        """The job's paths readable too (its gateway socket reachable by path where Landlock governs that: a later
        ABI), then both loaded, Landlock first (needs no_new_privs set)."""
        if self.ruleset is not None:
            from landlockpy import AccessFS

            allow_reading(self.ruleset, job_paths)
            if gateway and os.path.exists(gateway):
                self.ruleset.allow_path(gateway, AccessFS.RESOLVE_UNIX)
            self.ruleset.restrict()
            self.ruleset.close()
        if self.syscalls is not None:
            self.syscalls.load()
