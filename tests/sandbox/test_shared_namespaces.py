"""The namespaces evaluations share (harness/sandbox/template.py: the template's UTS, IPC and, where Landlock's scope
holds, network namespace; docs/decisions/0026-namespaces-per-template.md), tried with real processes: a stand-in
template makes its namespaces as the template does, and forks two evaluations, each making its own as an
evaluation does and confined as asked; one takes an abstract unix socket name, the other, while it is held, connects
to it and tries to take it too. The pipes that order them are the test's, not theirs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from harness.sandbox import filters, kernel
from harness.sandbox.confine import Protections
from harness.sandbox.template import evaluation_namespaces
from tests.fixtures.modes import REPOSITORY, needs_root

BESIDE = """
import errno, fcntl, json, os, socket, struct, sys, traceback
from harness.sandbox import filters, kernel
from harness.sandbox.confine import Protections, interpreter_paths
from harness.sandbox.template import enter_template_namespaces, evaluation_namespaces, network_shared

scopes, layers = sys.argv[1] == "scopes", sys.argv[2]
protections = Protections(
    mode="root", fresh_process=True, pid_namespace=True, mount_namespace=True, network_namespace=True,
    ipc_uts_namespaces=True, no_new_privs=True, seccomp=True, landlock=scopes, landlock_scopes=scopes,
)
NAME = f"\\0stepeval-test-{os.getpid()}"


def attempt(call):
    try:
        call()
        return "done"
    except OSError as error:
        return errno.errorcode[error.errno]


def interfaces():
    # by index (SIOCGIFNAME on a unix socket): if_nameindex asks netlink, which the filter refuses
    names = []
    with socket.socket(socket.AF_UNIX) as any_socket:
        for index in range(1, 65):
            try:
                name = fcntl.ioctl(any_socket, 0x8910, struct.pack("16si20x", b"", index))[:16]
                names.append(name.rstrip(b"\\0").decode())
            except OSError:
                continue
    return names


def evaluation(role, ready, go, out):
    kernel.unshare(evaluation_namespaces(protections))
    kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
    landlock = layers != "namespaces" and protections.landlock
    filters.Confinement(
        filters.landlock_ruleset(interpreter_paths(), []) if landlock else None,
        filters.seccomp_filter(pid_namespace=False, signal_only_self=False) if layers == "all" else None,
    ).enforce([], None)
    found = {"hostname": socket.gethostname(), "interfaces": interfaces()}
    held, other = socket.socket(socket.AF_UNIX), socket.socket(socket.AF_UNIX)
    if role == "hold":
        found["bind"] = attempt(lambda: held.bind(NAME))
        if found["bind"] == "done":
            held.listen()
        os.write(ready, b".")
        os.read(go, 1)  # held until the other has looked
    else:
        os.read(go, 1)
        found["connect"] = attempt(lambda: held.connect(NAME))
        found["bind"] = attempt(lambda: other.bind(NAME))
    os.write(out, json.dumps(found).encode())
    os._exit(0)


def start(role):
    ready, go, out = os.pipe(), os.pipe(), os.pipe()
    if os.fork() == 0:
        try:
            evaluation(role, ready[1], go[0], out[1])
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(1)
    for end in (ready[1], go[0], out[1]):
        os.close(end)  # an evaluation that died is an EOF here, not a wait without end
    return ready[0], go[1], out[0]


enter_template_namespaces(network=network_shared(protections))
hold_ready, hold_go, hold_out = start("hold")
assert os.read(hold_ready, 1), "the holder died"
_, probe_go, probe_out = start("probe")
os.write(probe_go, b".")
probe = json.loads(os.read(probe_out, 4096))
os.write(hold_go, b".")
print(json.dumps({"hold": json.loads(os.read(hold_out, 4096)), "probe": probe}))
"""


AS_ROOT = needs_root("network, UTS and IPC namespaces made as in mode root")


def beside(scopes: str, layers: str) -> dict[str, dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-c", BESIDE, scopes, layers], cwd=REPOSITORY, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, dict[str, object]] = json.loads(done.stdout)
    for side in found.values():  # whatever they share or not: the template's host name, no interface but lo
        assert side.pop("hostname") == "stepeval" and side.pop("interfaces") == ["lo"], side
    return found


@pytest.mark.parametrize(
    ("off", "shared"), [(None, True), ("landlock", False), ("landlock_scopes", False), ("seccomp", False)]
)
def test_the_network_namespace_is_shared_only_where_the_scope_and_the_filter_hold(
    off: str | None, shared: bool
) -> None:
    layers = {"landlock": True, "landlock_scopes": True, "seccomp": True} | ({off: False} if off else {})
    flags = evaluation_namespaces(Protections(mode="root", pid_namespace=True, **layers))
    assert flags == kernel.CLONE_NEWNS | (0 if shared else kernel.CLONE_NEWNET)


@pytest.mark.process
@AS_ROOT
def test_without_scopes_each_evaluation_has_its_own_abstract_sockets() -> None:
    """No Landlock scope: a network namespace per evaluation, so the name one holds is not there for the other (the
    namespaces alone, with no filter: bind is refused by it besides)."""
    assert beside("no-scopes", "namespaces") == {
        "hold": {"bind": "done"},
        "probe": {"connect": "ECONNREFUSED", "bind": "done"},
    }


SCOPES = pytest.mark.skipif(
    filters.landlock_abi() < filters.LANDLOCK_SCOPE_ABI,
    reason=f"this kernel's Landlock (ABI {filters.landlock_abi()}) has no abstract socket scope (ABI 6, Linux 6.12)",
)


@SCOPES
@pytest.mark.process
@AS_ROOT
def test_the_scope_alone_refuses_the_connection_but_tells_the_name_is_held() -> None:
    """Why the filter refuses bind where the network namespace is shared: the scope refuses the connection, but
    EPERM (not ECONNREFUSED) and EADDRINUSE say that the name is held, a bit per name between two evaluations."""
    assert beside("scopes", "landlock") == {
        "hold": {"bind": "done"},
        "probe": {"connect": "EPERM", "bind": "EADDRINUSE"},
    }


@SCOPES
@pytest.mark.process
@AS_ROOT
def test_with_scopes_and_the_filter_a_shared_network_namespace_holds_no_name() -> None:
    """The template's network namespace, shared: no evaluation takes a name, so the other finds none."""
    assert beside("scopes", "all") == {
        "hold": {"bind": "EPERM"},
        "probe": {"connect": "ECONNREFUSED", "bind": "EPERM"},
    }
