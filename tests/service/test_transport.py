"""Answers leave as soon as they exist: Nagle off, one write per response, connections kept alive."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any, ClassVar
from urllib.parse import urlsplit

import pytest
import uvicorn
from fastapi import FastAPI

from harness.service.serve import bound_socket
from harness.service.transport import PromptH11Protocol
from tests.fixtures.service import Service


class RecordingTransport:
    """The real transport, with every write it is given recorded."""

    def __init__(self, transport: asyncio.Transport, writes: list[bytes]) -> None:
        self._transport = transport
        self._writes = writes

    def write(self, data: bytes) -> None:
        self._writes.append(bytes(data))
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class Recorded(PromptH11Protocol):
    """PromptH11Protocol on a transport that records what reaches the socket, and whether Nagle is off there."""

    writes: ClassVar[list[bytes]] = []
    nodelay: ClassVar[list[int]] = []

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(RecordingTransport(transport, Recorded.writes))  # type: ignore[arg-type]
        sock = transport.get_extra_info("socket")
        Recorded.nodelay.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


@pytest.fixture(scope="module")
def recorded_server() -> Iterator[tuple[str, int]]:
    app = FastAPI()

    @app.get("/hello")
    async def hello() -> dict[str, str]:
        return {"hello": "world"}

    config = uvicorn.Config(app, host="127.0.0.1", port=0, http=Recorded, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    sock = bound_socket("127.0.0.1", 0)  # as stepeval serve binds it: a socket whose protocol field is 0
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    yield sock.getsockname()[:2]
    server.should_exit = True
    thread.join(10)


def test_nagle_is_off_and_each_response_is_one_write(recorded_server: tuple[str, int]) -> None:
    Recorded.writes.clear()
    connection = http.client.HTTPConnection(*recorded_server, timeout=10)
    for _ in range(3):
        connection.request("GET", "/hello")
        response = connection.getresponse()
        assert json.loads(response.read()) == {"hello": "world"}
    connection.close()
    assert Recorded.nodelay and all(Recorded.nodelay)
    assert len(Recorded.writes) == 3
    assert all(w.startswith(b"HTTP/1.1 200") and w.endswith(b'{"hello":"world"}') for w in Recorded.writes)


def test_the_service_keeps_a_connection_alive_across_requests(service: Service) -> None:
    parts = urlsplit(service.url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    connection.request("GET", "/healthz")
    first = connection.getresponse()
    assert first.status == 200 and not first.will_close
    first.read()
    sock = connection.sock
    for path in ("/healthz", "/readyz"):
        connection.request("GET", path)
        response = connection.getresponse()
        assert response.status == 200 and not response.will_close
        response.read()
    assert connection.sock is sock  # the same connection, never reopened
    connection.close()
