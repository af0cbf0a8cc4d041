"""The seccomp filter (harness/sandbox/filters.py) loaded for real in a fresh interpreter, by libseccomp and as the
program the template compiles once: the calls it refuses fail with its errno, the calls beside them still work, and
the same calls without the filter all succeed (so each refusal is the filter's)."""

from __future__ import annotations

import json
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
        "machine's free memory": "EPERM",
        "a module's usual start": "done",
    }


def test_without_the_filter_every_call_succeeds() -> None:  # else the refusals above prove nothing
    assert set(attempts("unfiltered").values()) == {"done"}


def test_a_compiled_filter_is_a_program_or_nothing() -> None:
    with pytest.raises(ValueError, match="not a BPF program"):
        filters.CompiledFilter(b"\x06\x00\x00\x00\x00\x00\xff").load()  # 7 bytes: no whole instruction
