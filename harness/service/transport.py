"""Answers leave as soon as they exist: TCP_NODELAY on every connection, and one send per response.

uvicorn writes a response's status line and headers, then its body, as separate writes. With Nagle's algorithm
on (asyncio sets TCP_NODELAY only on sockets whose protocol field says TCP, and a socket handed to uvicorn says
0), the body waits for the client's delayed ACK of the headers: ~40 ms. With Nagle off the two writes leave as
two packets, which cost 11-15% of saturated throughput. `PromptH11Protocol` does both: Nagle off, and the writes
of one turn of the event loop joined into one.

It also sheds what a slow or stalled client would hold: a request's head must arrive within `head_s` (HEAD_S
unless the server is `bounded` otherwise) of the connection's start (or of the previous answer), and a connection
closed while the client is still sending (a 413 answered before the body is read) lingers, as nginx's does: its
sending side shut, what still arrives read and dropped for at most LINGER_S and LINGER_BYTES, so that a client
writing its whole body before it reads (Python's urllib) reads the answer instead of a reset. A request sent
before the previous one is answered (pipelining) is not served: the one in flight is answered, then the connection
is closed, what followed dropped.

An `Edge` bounds the connections open at once, in all and from one client address: past either bound the oldest
connection awaiting a request's head (from that address, or from any) is closed to make room, and where none is,
the new connection is answered 503 and closed before anything of it is read. A connection whose request head is
already waiting in the kernel when it opens (a client that sends at once, as a platform's does) is never the one
closed to make room before that head is read: under a flood of idle connections it is still served.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections import Counter
from contextlib import suppress
from typing import Any, ClassVar

from harness._compat.asyncio import read_at_most
from harness._compat.uvicorn import H11Protocol, body_held, close_after_response, pipelined, waiting_for_a_request
from harness.core import logs

FLUSH_AT_BYTES = 64 * 1024
"""A larger response is sent as it is written (a streamed body must not pile up here)."""
HEAD_S = 10.0
"""For a request's head (its line and headers) to arrive; past it the connection is closed unanswered (the
service's `head_timeout_s` in its place)."""
HELD_BYTES = 16 * 1024
"""Of a body the application has not asked for yet, what is read ahead (uvicorn's own bound: 64 KiB)."""
LINGER_S = 5.0
LINGER_BYTES = 16 * 1024 * 1024
"""A closed connection's input read and dropped, at most, before it is closed for good."""


SHED_LOG_S = 10.0
"""At most one log line per this many seconds says connections were shed (and how many since the last)."""
ACCEPT_FAILED = "socket.accept() out of system resource"
"""asyncio's message when a connection cannot be accepted (no descriptor left): logged once per SHED_LOG_S."""


def shed_answer(detail: str) -> bytes:
    """A 503 in the service's refusal shape, whole, for a connection closed before it is read."""
    body = json.dumps({"error": {"status": 503, "code": "busy", "message": detail}}).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 2\r\n"
        f"connection: close\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


class Quiet:
    """Counts of something frequent, said in one log line per SHED_LOG_S (a flood must not flood the log)."""

    def __init__(self, event: str) -> None:
        self.event = event
        self.counts: Counter[str] = Counter()
        self.said = 0.0

    def count(self, what: str) -> None:
        """One more `what`; the line is written when SHED_LOG_S has passed since the last."""
        self.counts[what] += 1
        now = time.monotonic()
        if now - self.said >= SHED_LOG_S:
            self.said = now
            logs.log_line(event=self.event, **dict(self.counts))
            self.counts.clear()


class Edge:
    """The connections open at once: at most `total`, and `per_client` from one address (see the module)."""

    def __init__(self, total: int, per_client: int, listening: tuple[socket.socket, int] | None = None) -> None:
        self.listening = listening
        self.total = total
        self.per_client = per_client
        self.open: dict[PromptH11Protocol, str] = {}  # in the order they opened: the oldest first
        self.by_client: Counter[str] = Counter()
        self.shed = Quiet("connections_shed")
        self.serving = False  # set at the first connection: accept failures counted, the listen queue restored

    def admit(self, protocol: PromptH11Protocol, client: str) -> bool:
        """Whether `protocol`, from `client`, may open; room is made by closing an older idle one if need be."""
        if not self.serving:  # the first connection
            quiet_accept_failures(asyncio.get_running_loop())
            if self.listening is not None:
                self.listening[0].listen(self.listening[1])
            self.serving = True
        if self.by_client[client] >= self.per_client and not self.make_room(client):
            self.shed.count("refused_per_client")
            return False
        if len(self.open) >= self.total and not self.make_room(None):
            self.shed.count("refused_total")
            return False
        self.open[protocol] = client
        self.by_client[client] += 1
        return True

    def make_room(self, client: str | None) -> bool:
        """Close the oldest connection (of `client`, or of anyone) awaiting a request whose head has not arrived;
        whether there was one."""
        for older, whose in self.open.items():
            if (client is None or whose == client) and older.idle() and not older.head_waiting:
                self.shed.count("closed_idle")
                self.release(older)
                older.coalescing.abort()
                return True
        return False

    def release(self, protocol: PromptH11Protocol) -> None:
        """`protocol` is closed (or closing): it counts no more."""
        client = self.open.pop(protocol, None)
        if client is not None:
            self.by_client[client] -= 1
            if not self.by_client[client]:
                del self.by_client[client]


def head_arrived(transport: asyncio.BaseTransport) -> bool:
    """Whether a whole request head already waits, unread, in the connection's kernel buffer (peeked, not read)."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return False
    peek = socket.socket(fileno=sock.fileno())  # the same descriptor, detached below: never closed here
    try:
        with suppress(OSError):
            return b"\r\n\r\n" in peek.recv(HELD_BYTES, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        return False
    finally:
        peek.detach()


def quiet_accept_failures(loop: asyncio.AbstractEventLoop) -> None:
    """asyncio's log line for a connection it could not accept (out of descriptors) at most once per SHED_LOG_S,
    with a count; the loop's other reports go to its default handler."""
    quiet = Quiet("accept_failed")

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == ACCEPT_FAILED:
            quiet.count(type(context.get("exception")).__name__)
            return
        loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


class CoalescingTransport:
    """The transport, but what is written in one turn of the event loop is sent in one write."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self._size = 0
        self._lingering: asyncio.TimerHandle | None = None
        self._dropped = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Queue `data`; it leaves at the end of this turn of the event loop (or now, when there is much)."""
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(bytes(data))
        self._size += len(data)
        if self._size >= FLUSH_AT_BYTES:
            self.flush()

    def flush(self) -> None:
        """Send what is queued, in one write."""
        if not self._pending:
            return
        data = b"".join(self._pending)
        self._pending.clear()
        self._size = 0
        if not self._transport.is_closing():
            self._transport.write(data)

    def get_write_buffer_size(self) -> int:
        """What is not sent yet, queued here included."""
        return self._size + self._transport.get_write_buffer_size()

    def close(self) -> None:
        """Send what is queued, shut the sending side, and close once the client has stopped sending (its end
        closed, or LINGER_S or LINGER_BYTES later): a client still writing its body reads the answer."""
        if self._lingering is not None or self._transport.is_closing():
            return
        self.flush()
        if not self._transport.can_write_eof():
            self._transport.close()
            return
        self._transport.write_eof()
        self._lingering = self._loop.call_later(LINGER_S, self._transport.close)
        self._transport.resume_reading()

    def is_closing(self) -> bool:
        """Whether it is closed, or closing (lingering)."""
        return self._lingering is not None or self._transport.is_closing()

    def drops(self, data: bytes) -> bool:
        """Whether `data` arrived after the close (then dropped; past LINGER_BYTES the connection is closed)."""
        if self._lingering is None:
            return False
        self._dropped += len(data)
        if self._dropped > LINGER_BYTES:
            self.abort()
        return True

    def abort(self) -> None:
        """Closed now, lingering or not."""
        if self._lingering is not None:
            self._lingering.cancel()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class PromptH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with Nagle off and one write per response (see the module's docstring)."""

    edge: ClassVar[Edge | None] = None  # the bounds on connections (`bounded`), or none
    head_s: ClassVar[float] = HEAD_S

    @classmethod
    def bounded(
        cls,
        total: int,
        per_client: int,
        listening: tuple[socket.socket, int] | None = None,
        head_s: float = HEAD_S,
    ) -> type[PromptH11Protocol]:
        """The protocol for a server whose connections `Edge(total, per_client)` bounds, each request's head
        awaited `head_s`; `listening`: its socket and the listen queue it is given again once serving (asyncio
        listens with its accept batch)."""
        return type(cls.__name__, (cls,), {"edge": Edge(total, per_client, listening), "head_s": head_s})

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.head_timer: asyncio.TimerHandle | None = None
        self.pipelining = False
        self.head_waiting = self.edge is not None and head_arrived(transport)  # until data_received reads it
        peer = transport.get_extra_info("peername")
        client = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        self.admitted = self.edge is None or self.edge.admit(self, client)
        if not self.admitted:
            transport.write(shed_answer("too many connections are open: try again later"))
            transport.close()
            return
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        read_at_most(transport, HELD_BYTES)  # an unsigned client's bytes wait in the kernel, not here
        self.coalescing = CoalescingTransport(transport, asyncio.get_running_loop())
        super().connection_made(self.coalescing)  # type: ignore[arg-type]
        self.watch_head()

    def idle(self) -> bool:
        """Whether it awaits a request's head (or is closing): the edge may close it to make room."""
        return waiting_for_a_request(self) or self.coalescing.is_closing()

    def data_received(self, data: bytes) -> None:
        self.head_waiting = False
        if self.coalescing.drops(data) or self.pipelining:
            return
        super().data_received(data)
        if pipelined(self):  # a request sent before this one's answer: this one answered, then the connection closed
            self.pipelining = True
            close_after_response(self)
            return
        if body_held(self) > HELD_BYTES:
            self.coalescing.pause_reading()  # the application asks for more (uvicorn resumes reading then)
        self.watch_head()

    def eof_received(self) -> None:
        """The client's end closed: a lingering connection is done."""
        if self.admitted and self.coalescing.is_closing():
            self.coalescing.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.admitted:
            return  # answered 503 and closed before uvicorn knew of it
        if self.edge is not None:
            self.edge.release(self)
        if self.head_timer is not None:
            self.head_timer.cancel()
        self.coalescing.abort()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.watch_head()

    def watch_head(self) -> None:
        """A timer for the next request's head while one is awaited, none while one is being served."""
        waiting = waiting_for_a_request(self) and not self.coalescing.is_closing()
        if waiting and self.head_timer is None:
            self.head_timer = asyncio.get_running_loop().call_later(self.head_s, self.head_late)
        elif not waiting and self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def head_late(self) -> None:
        self.head_timer = None
        if waiting_for_a_request(self):
            self.coalescing.abort()
