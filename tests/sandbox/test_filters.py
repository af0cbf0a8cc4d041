"""The seccomp filter (harness/sandbox/filters.py) loaded for real in a fresh interpreter, by libseccomp and as the
program the template compiles once: the calls it refuses fail with its errno, the calls beside them still work, and
the same calls without the filter all succeed (so each refusal is the filter's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.sandbox import filters

pytestmark = pytest.mark.process

REPOSITORY = Path(__file__).resolve().parents[2]
ATTEMPTS = """
import errno, json, os, socket, sys, tempfile
from harness.sandbox import filters, kernel

handle, path = tempfile.mkstemp()
os.close(handle)
if sys.argv[1] != "unfiltered":
    kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
    rules = filters.seccomp_filter(pid_namespace=False, signal_only_self=True)
    (filters.compiled(rules) if sys.argv[1] == "compiled" else rules).load()
said = {}

def attempt(name, call):
    try:
        call()
        said[name] = "done"
    except OSError as error:
        said[name] = errno.errorcode[error.errno]

attempt("AF_INET socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close())
attempt("AF_UNIX socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())
attempt("chmod", lambda: os.chmod(path, 0o600))
attempt("setsid", os.setsid)
attempt("dumpable again", lambda: kernel.prctl(kernel.PR_SET_DUMPABLE, 1))
attempt("signal its parent", lambda: os.kill(os.getppid(), 0))
attempt("signal itself", lambda: os.kill(os.getpid(), 0))
attempt("read a file", lambda: open(path).close())


def option(name):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.getsockopt(socket.SOL_SOCKET, name, 8)


attempt("socket cookie", lambda: option(filters.SO_COOKIE))  # the machine's count of sockets asked for one
attempt("socket type", lambda: option(socket.SO_TYPE))


def sysinfo():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.sysinfo(ctypes.create_string_buffer(256)) != 0:
        raise OSError(ctypes.get_errno(), "sysinfo")


def a_client():
    import boto3
    assert os.cpu_count() and sorted(range(100_000, 0, -1))[0] == 1
    boto3.session.Session().client("s3", region_name="us-east-1").close()


attempt("machine's free memory", sysinfo)  # a channel between evaluations (issue 31)
attempt("a module's usual start", a_client)  # what needed sysinfo would fail here
os.unlink(path)
print(json.dumps(said))
"""


def attempts(mode: str) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", ATTEMPTS, mode], cwd=REPOSITORY, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(not filters.seccomp_available(), reason="this kernel or libseccomp offers no seccomp filter")
@pytest.mark.parametrize("how", ["filtered", "compiled"])  # loaded by libseccomp; its program loaded by the kernel
def test_the_filter_refuses_its_calls_and_lets_the_others_through(how: str) -> None:
    assert attempts(how) == {
        "AF_INET socket": "EAFNOSUPPORT",
        "AF_UNIX socket": "done",
        "chmod": "EPERM",
        "setsid": "EPERM",  # no PID namespace holds its tree: its process group is how it is killed
        "dumpable again": "EPERM",
        "signal its parent": "EPERM",
        "signal itself": "done",
        "read a file": "done",
        "socket cookie": "EPERM",
        "socket type": "done",
        "machine's free memory": "EPERM",
        "a module's usual start": "done",
    }


def test_without_the_filter_every_call_succeeds() -> None:  # else the refusals above prove nothing
    assert set(attempts("unfiltered").values()) == {"done"}


def test_a_compiled_filter_is_a_program_or_nothing() -> None:
    with pytest.raises(ValueError, match="not a BPF program"):
        filters.CompiledFilter(b"\x06\x00\x00\x00\x00\x00\xff").load()  # 7 bytes: no whole instruction


OTHER_ENTRIES = """
import ctypes, json, mmap, os, signal, sys
from harness.sandbox import filters, kernel

I386_GETPID, I386_IPC, SEMCTL, X32 = 20, 117, 3, 0x40000000
libc = ctypes.CDLL(None, use_errno=True)


def int80(number, *args):
    # mov eax, number; mov ebx/ecx/edx/esi/edi, args; int 0x80; ret: the i386 entry, whose numbers are not x86_64's
    code = b"\\xb8" + number.to_bytes(4, "little")
    for opcode, arg in zip((b"\\xbb", b"\\xb9", b"\\xba", b"\\xbe", b"\\xbf"), args):
        code += opcode + arg.to_bytes(4, "little")
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code + b"\\xcd\\x80\\xc3")
    return ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()


def outcome(call):
    child = os.fork()
    if child == 0:
        if sys.argv[1] != "unfiltered":
            kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
            rules = filters.seccomp_filter(pid_namespace=False, signal_only_self=True)
            (filters.compiled(rules) if sys.argv[1] == "compiled" else rules).load()
        os._exit(0 if call() != -38 else 38)  # -ENOSYS: the kernel has no such entry
    status = os.waitpid(child, 0)[1]
    return signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


print(json.dumps({
    "i386 getpid": outcome(lambda: int80(I386_GETPID)),
    "i386 ipc (semctl, no argument: EINVAL)": outcome(lambda: int80(I386_IPC, SEMCTL, 0, 0, 3, 0)),
    "x32 shmget": outcome(lambda: libc.syscall(29 | X32, 0, 4096, 0o1600) and -ctypes.get_errno()),
}))
"""


@pytest.mark.skipif(not filters.seccomp_available(), reason="this kernel or libseccomp offers no seccomp filter")
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the i386 and x32 entries are x86_64's")
@pytest.mark.parametrize("how", ["unfiltered", "filtered", "compiled"])
def test_the_other_entries_to_the_kernel_kill_the_process(how: str) -> None:
    """The filter names x86_64's calls: the same kernel also answers i386's (`int 0x80`, whose `ipc` multiplexer is
    every SysV IPC call of the namespace evaluations share) and x32's numbers. libseccomp's filter kills a process
    that uses either (SIGSYS); unfiltered, the i386 entry answers here (so that the kill is the filter's)."""
    done = subprocess.run(
        [sys.executable, "-c", OTHER_ENTRIES, how], cwd=REPOSITORY, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    if how == "unfiltered":
        assert found["i386 getpid"] == 0 and found["i386 ipc (semctl, no argument: EINVAL)"] == 0, found
    else:
        assert found == dict.fromkeys(found, "SIGSYS"), found
