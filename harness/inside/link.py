"""The evaluation process's line to the read-only gateway: HTTP/1.1 over the gateway's unix socket, each
connection opened with a one-line preamble naming the evaluation's token.

botocore's clients send through it: `GatewayHTTP` stands in for the urllib3 session of each client's endpoint
(the two methods botocore's `Endpoint` calls, `send` and `close`), so a request leaves the process as bytes on
the socket and nothing else: no TCP, no relay thread, no second copy. A spare evaluation process opens its first
connection before its job exists (`preconnect`); the job's token goes down it when the job arrives (`attach`).
The line holds nothing worth stealing: the token opens this evaluation's reads only, and only until its answer.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.exceptions import ConnectionClosedError, EndpointConnectionError, ReadTimeoutError

PREAMBLE = b"STEPEVAL/1 "
CHUNK_BYTES = 64 * 1024
DEFAULT_TIMEOUTS = (5.0, 20.0)  # connect, read (seconds)
CONNECT_RETRY_S = 0.005


class GatewayConnection(http.client.HTTPConnection):
    """One HTTP/1.1 connection on an already connected unix socket."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__("gateway")  # the Host header it sends; the gateway routes by path
        self.sock = sock

    def connect(self) -> None:
        raise ConnectionClosedError(endpoint_url="gateway")  # a closed connection is replaced, never reopened


class GatewayLink:
    """This process's connections to the gateway, kept alive between requests (thread-safe)."""

    def __init__(self) -> None:
        self._socket_path: str | None = None
        self._preamble = b""
        self._spare: tuple[str, socket.socket] | None = None  # (its socket path, it): opened before the token
        self._idle: list[GatewayConnection] = []
        self._lock = threading.Lock()

    def preconnect(self, socket_path: str) -> None:
        """Open one connection now, so that the first request of the coming job does not wait for it."""
        with contextlib.suppress(OSError):
            self._spare = (socket_path, self._connect(socket_path, DEFAULT_TIMEOUTS[0]))

    def attach(self, socket_path: str, token: str) -> None:
        """The evaluation's gateway and token: what every connection opens with, from now on."""
        with self._lock:
            self._socket_path = socket_path
            self._preamble = PREAMBLE + token.encode("ascii") + b"\n"
            spare, self._spare = self._spare, None
        if spare is None:
            return
        spare_path, sock = spare
        try:
            if spare_path != socket_path:  # opened to another gateway: of no use to this evaluation
                raise OSError("another gateway")
            sock.sendall(self._preamble)
        except OSError:
            sock.close()
        else:
            self.give_back(GatewayConnection(sock))

    def take(self, connect_timeout: float) -> GatewayConnection:
        """An idle connection the gateway has not closed (it closes those idle too long), or a new one."""
        with self._lock:
            while self._idle:
                connection = self._idle.pop()
                if _open(connection):
                    return connection
                connection.close()
            socket_path, preamble = self._socket_path, self._preamble
        if socket_path is None:
            raise EndpointConnectionError(endpoint_url="gateway (no evaluation attached)")
        try:
            sock = self._connect(socket_path, connect_timeout)
        except OSError:
            raise EndpointConnectionError(endpoint_url="gateway") from None
        try:
            sock.sendall(preamble)
        except OSError:
            sock.close()
            raise EndpointConnectionError(endpoint_url="gateway") from None
        return GatewayConnection(sock)

    def give_back(self, connection: GatewayConnection) -> None:
        with self._lock:
            self._idle.append(connection)

    def http(self, timeouts: tuple[float, float] = DEFAULT_TIMEOUTS) -> GatewayHTTP:
        """What a client's endpoint sends with."""
        return GatewayHTTP(self, timeouts)

    @staticmethod
    def _connect(socket_path: str, timeout: float) -> socket.socket:
        """A connected socket; a full accept queue (EAGAIN: a unix socket does not wait for room) is tried again
        until `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(timeout)
                sock.connect(socket_path)
                return sock
            except BlockingIOError:
                sock.close()
                if time.monotonic() >= deadline:
                    raise
                time.sleep(CONNECT_RETRY_S)
            except OSError:
                sock.close()
                raise


class GatewayHTTP:
    """botocore's http session interface (`send`, `close`) over a GatewayLink."""

    def __init__(self, link: GatewayLink, timeouts: tuple[float, float]) -> None:
        self._link = link
        self._connect_timeout, self._read_timeout = timeouts

    def send(self, request: AWSPreparedRequest) -> AWSResponse:
        """One request, headers and body in one write; the response's body is read by botocore, as it wants."""
        url = urlsplit(request.url)
        target = (url.path or "/") + (f"?{url.query}" if url.query else "")
        connection = self._link.take(self._connect_timeout)
        try:
            assert connection.sock is not None
            connection.sock.settimeout(self._read_timeout)
            connection.putrequest(
                request.method, target, skip_host="host" in request.headers, skip_accept_encoding=True
            )
            body = _body_bytes(request.body)
            for name, value in request.headers.items():
                connection.putheader(name, value)
            if body and "content-length" not in request.headers:  # botocore leaves it out of a GET's body
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
        except TimeoutError:
            connection.close()
            raise ReadTimeoutError(endpoint_url=request.url) from None
        except (OSError, http.client.HTTPException, ConnectionClosedError):
            connection.close()
            raise ConnectionClosedError(endpoint_url=request.url) from None
        done = self._reuse(connection, response)
        # its headers as http.client parsed them: AWSResponse reads them into a dict of its own (a copy was waste)
        return AWSResponse(request.url, response.status, response.msg, GatewayBody(response, done))

    def _reuse(self, connection: GatewayConnection, response: http.client.HTTPResponse) -> Callable[[bool], None]:
        """What to do with the connection once the body is read (`True`) or abandoned (`False`)."""

        def done(whole: bool) -> None:
            if whole and not response.will_close:
                self._link.give_back(connection)
            else:
                connection.close()

        return done

    def close(self) -> None:
        """Connections belong to the link (and die with the process)."""


class GatewayBody:
    """A response body as botocore reads it (`stream`, `read`, `close`); the connection is reused at its end."""

    def __init__(self, response: http.client.HTTPResponse, done: Callable[[bool], None]) -> None:
        self._response = response
        self._done: Callable[[bool], None] | None = done

    def read(self, amt: int | None = None) -> bytes:
        try:
            data = self._response.read(amt)
        except (OSError, http.client.HTTPException):
            self._finish(False)
            raise ConnectionClosedError(endpoint_url="gateway") from None
        if self._response.isclosed():
            self._finish(True)
        return data

    def stream(self, amt: int = CHUNK_BYTES, decode_content: bool = False, **_: Any) -> Iterator[bytes]:
        while chunk := self.read(amt):
            yield chunk

    def close(self) -> None:
        if self._done is not None:
            self._response.close()
            self._finish(False)

    def _finish(self, whole: bool) -> None:
        done, self._done = self._done, None
        if done is not None:
            done(whole)


def _open(connection: GatewayConnection) -> bool:
    """Whether an idle connection is still open (the gateway closes those idle too long): at its end, a read
    finds nothing more to come."""
    sock = connection.sock
    if sock is None:
        return False
    timeout = sock.gettimeout()
    sock.settimeout(0)  # with a timeout, Python would wait for something to read
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True  # nothing to read: open
    except OSError:
        return False
    finally:
        sock.settimeout(timeout)


def _body_bytes(body: Any) -> bytes | None:
    if body is None or isinstance(body, bytes):
        return body or None
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, bytearray | memoryview):
        return bytes(body)
    return body.read()  # a file-like body: reads are small
