"""`stepeval serve`: settings from STEPEVAL_* variables and flags, then uvicorn on one socket."""

from __future__ import annotations

import argparse
import errno
import socket
import sys

from pydantic import ValidationError

from harness.core import logs
from harness.sandbox.confine import MINIMUM
from harness.service.settings import ServiceSettings, settings_problems

ACCEPT_BATCH = 512
"""Connections accepted in one turn of the event loop (asyncio's `backlog`): each holds a descriptor until the edge
admits or sheds it, so at most STEPEVAL_MAX_CONNECTIONS plus this. asyncio also listens with it; the edge listens
again with LISTEN_QUEUE once serving (a shorter queue drops a hook's SYN under a flood: seconds of retransmits)."""
LISTEN_QUEUE = 2048
FLAGS = (
    "lab",
    "labs",
    "host",
    "port",
    "workers",
    "queue",
    "deadline_s",
    "endpoint_url",
    "unsafe_no_sandbox",
    "store_url",
)


def load_settings(args: argparse.Namespace) -> ServiceSettings | None:
    """Flags given on the command line override the environment; None (after saying why) when invalid."""
    overrides = {name: getattr(args, name) for name in FLAGS if getattr(args, name, None) is not None}
    if "lab" in overrides and "labs" in overrides:
        print("stepeval serve: --lab and --labs: give one (a lab, or a directory of labs)", file=sys.stderr)
        return None
    try:
        return ServiceSettings(**overrides)
    except ValidationError as exc:
        for line in settings_problems(exc, frozenset(overrides)):
            print(f"stepeval serve: {line}", file=sys.stderr)
        return None


def serve(settings: ServiceSettings, *, log_level: str = "INFO") -> int:
    """Run until interrupted. The first log line names the sandbox's mode and each protection, on or off, and what
    the mode cannot stop; it refuses to start below the minimum set (confine.MINIMUM) unless told
    --unsafe-no-sandbox. The next says where it listens (useful with --port 0)."""
    import uvicorn

    from harness._compat.uvicorn import StoppingServer
    from harness.service.app import create_app
    from harness.service.transport import PromptH11Protocol

    logs.configure(log_level)
    try:
        sock = bound_socket(settings.host, settings.port)  # before the workers start: a busy port is said at once
    except OSError as exc:
        print(
            f"stepeval serve: cannot listen on {settings.host}:{settings.port}: {why_not_bound(exc)}", file=sys.stderr
        )
        return 2
    app = create_app(settings)
    protections = app.state.evaluator.pool.protections()
    logs.log_line(event="sandbox", **protections.log_fields())
    if not protections.sufficient:
        below = [name for name in MINIMUM if name in protections.missing()]
        if not settings.unsafe_no_sandbox:
            app.state.evaluator.close()
            logs.log_line(event="refused_to_start", reason="sandbox", off=protections.missing(), below=below)
            print(
                f"stepeval serve: refusing to start: evaluations cannot be confined here (mode {protections.mode}; "
                f"missing from the minimum set: {', '.join(below)}; off: {', '.join(protections.missing())}); "
                "see docs/service.md, or pass --unsafe-no-sandbox (never in production)",
                file=sys.stderr,
            )
            sock.close()
            return 2
        logs.log_line(event="unsafe_no_sandbox", off=protections.missing())
    app.state.evaluator.access.clients.hold_own_credentials()
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        access_log=False,
        # Nagle off, one write per response; connections bounded in all and per client address
        http=PromptH11Protocol.bounded(
            settings.max_connections,
            settings.max_connections_per_client,
            listening=(sock, LISTEN_QUEUE),
            head_s=settings.head_timeout_s,
        ),
        log_level="warning",
        timeout_graceful_shutdown=int(settings.deadline_s),
        backlog=ACCEPT_BATCH,
    )

    def stopping() -> None:
        in_flight = app.state.admission.in_flight if hasattr(app.state, "admission") else 0
        logs.log_line(event="stopping", in_flight=in_flight, drain_limit_s=config.timeout_graceful_shutdown)

    server = StoppingServer(config, stopping)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    logs.log_line(event="listening", url=f"http://{shown}:{port}")
    try:
        server.run(sockets=[sock])
    finally:  # a second Ctrl-C skips the app's own shutdown: its processes and copies go all the same
        app.state.evaluator.close()
    return 0


def bound_socket(host: str, port: int) -> socket.socket:
    """The listening socket, bound as uvicorn binds it (IPv6 for an address with a colon, SO_REUSEADDR) and
    listening at once (uvicorn's backlog), so a client that reads the `listening` log line is never refused."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(LISTEN_QUEUE)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def why_not_bound(exc: OSError) -> str:
    """A bind's failure in words, with what to do about the common ones (the host and port are the user's)."""
    if exc.errno == errno.EADDRINUSE:
        return "address already in use (another process listens there: choose another --port or STEPEVAL_PORT)"
    if exc.errno == errno.EACCES:
        return "permission denied (ports below 1024 need privileges: choose another --port or STEPEVAL_PORT)"
    if exc.errno == errno.EADDRNOTAVAIL:
        return "cannot assign requested address (no interface of this machine has it: check --host)"
    return (exc.strerror or str(exc)).lower()


def main(args: argparse.Namespace) -> int:
    settings = load_settings(args)
    if settings is None:
        return 2
    return serve(settings)
