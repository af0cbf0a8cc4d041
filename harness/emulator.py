"""moto's server on loopback: the accounts `stepeval demo` and `stepeval test` play in.

`embedded_moto()` runs one server in this process (a thread); `moto_servers(k)` runs k servers, each in a process
of its own, so that a playthrough can reset and replay on them at once without sharing this process's GIL.

A server process is `python -m harness.emulator`: it binds a free port on 127.0.0.1, writes the port on its
stdout, and serves until its stdin closes. So it ends when `moto_servers` closes the pipe (on return, an
exception or Ctrl-C), and also when this process dies without a word: nothing is left listening.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from harness.account import EMULATOR_CREDENTIALS, SandboxSpec

REGION = "us-east-1"
LOOPBACK = "127.0.0.1"
STARTUP_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 5.0


@contextmanager
def embedded_moto() -> Iterator[SandboxSpec]:
    """Start moto's server on a free loopback port; yield the SandboxSpec that reaches it; stop it after."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request would drown everything else
    server = ThreadedMotoServer(ip_address=LOOPBACK, port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield SandboxSpec(EMULATOR_CREDENTIALS, REGION, f"http://{host}:{port}")
    finally:
        server.stop()


@contextmanager
def moto_servers(count: int, environment: Mapping[str, str] | None = None) -> Iterator[list[SandboxSpec]]:
    """Start `count` moto servers, each in its own process on a free loopback port; yield a SandboxSpec for each.

    They start at once (each import of moto takes about a second); all are stopped after, whatever happens.
    `environment` adds variables to theirs (what a lab spec's `emulator:` asks, e.g. MOTO_IAM_LOAD_MANAGED_POLICIES).
    """
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(count):
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "harness.emulator"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    start_new_session=True,  # Ctrl-C reaches us, not them: we stop them, in order
                    env={**os.environ, **(environment or {})},
                )
            )
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        ports = [_read_port(process, deadline) for process in processes]
        yield [SandboxSpec(EMULATOR_CREDENTIALS, REGION, f"http://{LOOPBACK}:{port}") for port in ports]
    finally:
        for process in processes:
            _stop(process)


def _read_port(process: subprocess.Popen[bytes], deadline: float) -> int:
    """The port the server process reports on its first stdout line."""
    assert process.stdout is not None
    line = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                raise RuntimeError(f"the moto server process did not start within {STARTUP_TIMEOUT_S:g} s")
            chunk = os.read(process.stdout.fileno(), 64)
            if not chunk:
                raise RuntimeError(f"the moto server process ended before serving (exit code {process.wait()})")
            line += chunk
    return int(line)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Close its stdin (it stops serving and exits); kill it if it does not."""
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def serve() -> None:
    """The server process: serve on a free loopback port, say which on stdout, exit when stdin closes."""
    from moto.server import ThreadedMotoServer

    _lean_reset()
    _reuse_aws_managed_policies()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address=LOOPBACK, port=0, verbose=False)
    server.start()
    sys.stdout.write(f"{server.get_host_and_port()[1]}\n")
    sys.stdout.flush()
    with contextlib.suppress(KeyboardInterrupt):
        while sys.stdin.buffer.read(4096):
            pass
    # Not server.stop(): it would wait for the request threads of clients that keep their connections open.
    # The state is worth nothing now, so the process just ends.
    os._exit(0)


def _lean_reset() -> None:
    """Make `POST /moto-api/reset` skip work whose result it throws away (in the server process only).

    moto's reset calls each backend's `reset()`, which empties the backend and builds it again (for EC2: 1300
    AMIs with their volumes and snapshots, ~45 ms), and then drops every backend anyway: the next request
    builds new ones. Only the building again is skipped; what subclasses release first (S3's global bucket
    names, open files) still is. The state after a reset is the same: no backend at all.
    """
    from moto.core.base_backend import BaseBackend

    def reset(self: BaseBackend) -> None:
        """Nothing: the backend is dropped right after (see `_lean_reset`)."""

    BaseBackend.reset = reset  # type: ignore[method-assign]


def _reuse_aws_managed_policies() -> None:
    """Build moto's ~1,600 AWS managed policies once per account and partition, not after every reset (in the
    server process only, and only when MOTO_IAM_LOAD_MANAGED_POLICIES asks for them: ~0.3 s per build, and a
    scenario touches several partitions). Each IAM backend gets shallow copies, so what one scenario changes on a
    policy (its attachment count) does not reach the next. Relies on moto's `IAMBackend._init_aws_policies`
    (moto is pinned below 6; tests/test_emulator_needs.py fails if it moves)."""
    import copy

    from moto.iam.models import IAMBackend

    build = IAMBackend._init_aws_policies
    built: dict[tuple[str, str], list[Any]] = {}

    def reused(self: IAMBackend) -> list[Any]:
        key = (self.account_id, self.region_name)
        if key not in built:
            built[key] = build(self)
        return [copy.copy(policy) for policy in built[key]]

    IAMBackend._init_aws_policies = reused  # type: ignore[method-assign]


if __name__ == "__main__":
    serve()
