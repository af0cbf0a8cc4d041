"""Answers leave as soon as they exist: Nagle off, one write per response, connections kept alive."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import pytest
import uvicorn
from fastapi import FastAPI

from harness.service.serve import bound_socket
from harness.service.transport import PromptH11Protocol
from tests.fixtures.service import SERVICE_LAB, Service


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


def test_a_client_that_writes_its_whole_body_first_reads_the_413(service: Service) -> None:
    """Issue 31: Python's urllib sends all of a 2 MiB body before it reads; it saw a broken pipe, not the 413
    answered after the first MiB (the connection now lingers, as nginx's does)."""
    body = b"{" + b" " * (2 * 1024 * 1024) + b"}"
    request = urllib.request.Request(
        service.url + "/v1/evaluations", data=body, headers={"Content-Type": "application/json"}, method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 413
    assert json.loads(refused.value.read())["error"]["code"] == "too_large"


def test_a_stalled_body_is_408_and_a_stalled_head_is_closed(service_factory: Any, moto_server: str) -> None:
    """Issue 31: a connection that declares a body and stops sending it, or never finishes its head, is let go
    (the service's body and head timeouts, 10 s each by default, 2 s here), not held open: the 408 ends its
    connection."""
    timeouts = {"STEPEVAL_HEAD_TIMEOUT_S": "2", "STEPEVAL_BODY_TIMEOUT_S": "2"}
    service = service_factory(
        "stalled", "--lab", str(SERVICE_LAB), "--workers", "1", "--endpoint-url", moto_server, env=timeouts
    )
    parts = urlsplit(service.url)
    stalled_body = socket.create_connection((parts.hostname, parts.port), timeout=60)
    stalled_head = socket.create_connection((parts.hostname, parts.port), timeout=60)
    try:
        stalled_body.sendall(
            b"POST /v1/evaluations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\n\r\n{" + b" " * 100
        )
        stalled_head.sendall(b"POST /v1/evaluations HTTP/1.1\r\nHost: x\r\n")
        answer = stalled_body.makefile("rb").read()
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
        assert b'"field":"body"' in answer and b"not received within 2 s" in answer, answer
        assert b"\r\nconnection: close\r\n" in answer.lower(), answer
        assert stalled_head.recv(1024) == b""  # closed unanswered
    finally:
        stalled_body.close()
        stalled_head.close()


def test_pipelined_requests_get_one_answer_and_the_connection_closes(service: Service) -> None:
    """Issue 31: 20,000 pipelined `GET /healthz` got one answer and held the connection 30-45 s. The first is
    answered, then the connection is closed; what followed it is dropped, never served."""
    parts = urlsplit(service.url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=60)
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" * 2000)
        received = b""
        while chunk := sock.recv(65536):  # ends at the service's close (the timeout only guards a hang)
            received += chunk
    finally:
        sock.close()
    assert received.count(b"HTTP/1.1 ") == 1 and received.startswith(b"HTTP/1.1 200 "), received[:300]


def test_connections_are_bounded_per_client_and_a_signed_hook_is_still_answered(
    service_factory: Any, moto_server: str, accounts: Any
) -> None:
    """Issue 31: one client trickling heads held 9,000 connections (the service out of descriptors, a hook 14-36 s).
    Past the per-client bound its oldest idle connections are closed: its descriptors stay bounded, and a signed hook
    from the same address is answered."""
    from tests.fixtures.service import SERVICE_LAB, bucket_events

    bounded = service_factory(
        "bounded-edge", "--lab", str(SERVICE_LAB), "--workers", "1", "--endpoint-url", moto_server,
        env={"STEPEVAL_MAX_CONNECTIONS": "24", "STEPEVAL_MAX_CONNECTIONS_PER_CLIENT": "16"},
    )  # fmt: skip
    parts = urlsplit(bounded.url)
    fds_before = descriptors(bounded.process.pid)
    held = []
    try:
        for _ in range(200):
            sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
            sock.sendall(b"POST /v1/evaluations HTTP/1.1\r\nHost: x\r\n")  # a head never finished
            held.append(sock)
        answer = bounded.post({"step": "01.01", "sandbox": accounts[0].ref(), "events": bucket_events("alpha-bucket")})
        assert answer.status_code == 200 and answer.json()["status"] in ("pass", "fail")
        fds_during = descriptors(bounded.process.pid)
        if fds_before is not None and fds_during is not None:  # as root (CI); the service is non-dumpable otherwise
            assert fds_during <= fds_before + 24
        assert all(closed(sock) for sock in held[:150])  # the oldest were closed to make room
    finally:
        for sock in held:
            sock.close()
    shed = [line for line in bounded.log_lines() if line.get("event") == "connections_shed"]
    assert 1 <= len(shed) <= 3 and shed[0]["closed_idle"] >= 1  # said, not once per connection


def descriptors(pid: int) -> int | None:
    """How many descriptors process `pid` holds; None where its /proc/PID/fd is closed to us (the service makes
    itself non-dumpable, so only root reads it)."""
    try:
        return len(list(Path(f"/proc/{pid}/fd").iterdir()))
    except PermissionError:
        return None


def closed(sock: socket.socket) -> bool:
    """Whether the peer closed `sock` (its end, or a reset: it had unread input); False if it is still open."""
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
