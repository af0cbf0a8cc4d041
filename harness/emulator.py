"""An embedded moto server on loopback: the account `stepeval demo` and `stepeval test` play in."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from moto.server import ThreadedMotoServer

from harness.account import EMULATOR_CREDENTIALS, SandboxSpec

REGION = "us-east-1"


@contextmanager
def embedded_moto() -> Iterator[SandboxSpec]:
    """Start moto's server on a free loopback port; yield the SandboxSpec that reaches it; stop it after."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request would drown everything else
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield SandboxSpec(EMULATOR_CREDENTIALS, REGION, f"http://{host}:{port}")
    finally:
        server.stop()
