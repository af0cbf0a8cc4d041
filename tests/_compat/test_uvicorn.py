"""The uvicorn internals behind harness/_compat/uvicorn.py: each test fails when one moves or changes shape."""

from __future__ import annotations

import asyncio
import http.client
import inspect
import re
import threading
import time
from typing import Any, ClassVar

import uvicorn
from uvicorn.protocols.http import flow_control
from uvicorn.protocols.utils import get_local_addr

from harness._compat.uvicorn import H11Protocol

# What harness/service/transport.py's CoalescingTransport expects uvicorn to call on a transport.
TRANSPORT_CALLS = frozenset(
    {"write", "close", "is_closing", "get_extra_info", "pause_reading", "resume_reading", "set_protocol"}
)


class Watched:
    """A transport that records the name of everything asked of it."""

    def __init__(self, transport: asyncio.Transport, asked: set[str]) -> None:
        self._transport = transport
        self._asked = asked

    def __getattr__(self, name: str) -> Any:
        self._asked.add(name)
        return getattr(self._transport, name)


class WatchedH11(H11Protocol):
    asked: ClassVar[set[str]] = set()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(Watched(transport, WatchedH11.asked))  # type: ignore[arg-type]


async def app(scope: dict, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


def test_connection_made_takes_the_transport_and_calls_only_what_ours_passes_on() -> None:
    assert list(inspect.signature(H11Protocol.connection_made).parameters) == ["self", "transport"]
    called = set()
    for code in (H11Protocol, flow_control, get_local_addr):
        called |= set(re.findall(r"transport\.(\w+)", inspect.getsource(code)))
    assert called <= TRANSPORT_CALLS


def test_a_protocol_class_given_for_http_serves_each_connection_and_asks_only_those_calls() -> None:
    config = uvicorn.Config(app, host="127.0.0.1", port=0, http=WatchedH11, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    sock = config.bind_socket()
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.01)
        assert config.http_protocol_class is WatchedH11
        connection = http.client.HTTPConnection(*sock.getsockname()[:2], timeout=10)
        for headers in ({}, {"Connection": "close"}):
            connection.request("GET", "/", headers=headers)
            assert connection.getresponse().read() == b"ok"
        connection.close()
    finally:
        server.should_exit = True
        thread.join(10)
    assert "write" in WatchedH11.asked
    assert WatchedH11.asked <= TRANSPORT_CALLS


def test_its_h11_connection_and_the_methods_a_subclass_extends() -> None:
    """`waiting_for_a_request` reads `conn.their_state`; PromptH11Protocol extends these four methods."""
    import h11

    assert "self.conn = h11.Connection(" in inspect.getsource(H11Protocol.__init__)
    assert h11.Connection(h11.SERVER).their_state is h11.IDLE
    for name, parameters in (
        ("data_received", ["self", "data"]),
        ("eof_received", ["self"]),
        ("connection_lost", ["self", "exc"]),
        ("on_response_complete", ["self"]),
    ):
        assert list(inspect.signature(getattr(H11Protocol, name)).parameters) == parameters, name


def test_its_cycle_holds_the_body_read_ahead() -> None:
    """`body_held` reads `cycle.body`, which uvicorn fills as the body arrives and empties as the application asks."""
    from uvicorn.protocols.http.h11_impl import RequestResponseCycle

    assert "self.body = bytearray()" in inspect.getsource(RequestResponseCycle.__init__)
    assert "self.cycle.body += event.data" in inspect.getsource(H11Protocol.handle_events)
    assert "self.cycle: RequestResponseCycle = None" in inspect.getsource(H11Protocol.__init__)


def test_h11_holds_a_pipelined_request_and_the_cycle_closes_when_not_kept_alive() -> None:
    """`pipelined` reads `conn.trailing_data` once the request is DONE; `close_after_response` clears
    `cycle.keep_alive`, which uvicorn reads at a response's end to close the connection."""
    import h11
    from uvicorn.protocols.http.h11_impl import RequestResponseCycle

    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 2)
    assert isinstance(conn.next_event(), h11.Request) and isinstance(conn.next_event(), h11.EndOfMessage)
    assert conn.next_event() is h11.PAUSED
    assert conn.their_state is h11.DONE and conn.trailing_data[0].startswith(b"GET / HTTP/1.1")
    assert "self.keep_alive = True" in inspect.getsource(RequestResponseCycle.__init__)
    assert "not self.keep_alive" in inspect.getsource(RequestResponseCycle.send)


def test_the_server_s_shutdown_is_a_coroutine_taking_the_sockets_and_runs_when_it_stops() -> None:
    """StoppingServer overrides `Server.shutdown(sockets)`: it must still be what `serve` awaits on the way out."""
    from harness._compat.uvicorn import StoppingServer

    assert inspect.iscoroutinefunction(uvicorn.Server.shutdown)
    assert list(inspect.signature(uvicorn.Server.shutdown).parameters) == ["self", "sockets"]

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})

    said: list[str] = []
    server = StoppingServer(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"), lambda: said.append("x")
    )
    runner = threading.Thread(target=server.run)
    runner.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    server.should_exit = True
    runner.join(timeout=20)
    assert not runner.is_alive() and said == ["x"]


def test_a_forced_stop_s_flag_the_lifespan_s_shutdown_and_the_logger_of_a_request_s_exception() -> None:
    """StoppingServer reads `force_exit`, runs `lifespan.shutdown()` itself after one, and filters `uvicorn.error`,
    the logger uvicorn's h11 protocol logs a request's exception on."""
    from uvicorn.lifespan.on import LifespanOn
    from uvicorn.protocols.http import h11_impl

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    assert server.force_exit is False
    assert inspect.iscoroutinefunction(LifespanOn.shutdown) and list(
        inspect.signature(LifespanOn.shutdown).parameters
    ) == ["self"]
    assert 'logging.getLogger("uvicorn.error")' in inspect.getsource(h11_impl.H11Protocol.__init__)
    assert "exc_info=exc" in inspect.getsource(h11_impl.RequestResponseCycle.run_asgi)
