"""Answers leave as soon as they exist: TCP_NODELAY on every connection, and one send per response.

uvicorn writes a response's status line and headers, then its body, as separate writes. With Nagle's algorithm
on (asyncio sets TCP_NODELAY only on sockets whose protocol field says TCP, and a socket handed to uvicorn says
0), the body waits for the client's delayed ACK of the headers: ~40 ms. With Nagle off the two writes leave as
two packets, which cost 11-15% of saturated throughput. `PromptH11Protocol` does both: Nagle off, and the writes
of one turn of the event loop joined into one.

It also sheds what a slow or stalled client would hold: a request's head must arrive within HEAD_S of the
connection's start (or of the previous answer), and a connection closed while the client is still sending (a 413
answered before the body is read) lingers, as nginx's does: its sending side shut, what still arrives read and
dropped for at most LINGER_S and LINGER_BYTES, so that a client writing its whole body before it reads (Python's
urllib) reads the answer instead of a reset.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from harness._compat.asyncio import read_at_most
from harness._compat.uvicorn import H11Protocol, body_held, waiting_for_a_request

FLUSH_AT_BYTES = 64 * 1024
"""A larger response is sent as it is written (a streamed body must not pile up here)."""
HEAD_S = 10.0
"""For a request's head (its line and headers) to arrive; past it the connection is closed unanswered."""
HELD_BYTES = 16 * 1024
"""Of a body the application has not asked for yet, what is read ahead (uvicorn's own bound: 64 KiB)."""
LINGER_S = 5.0
LINGER_BYTES = 16 * 1024 * 1024
"""A closed connection's input read and dropped, at most, before it is closed for good."""


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

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        read_at_most(transport, HELD_BYTES)  # an unsigned client's bytes wait in the kernel, not here
        self.coalescing = CoalescingTransport(transport, asyncio.get_running_loop())
        self.head_timer: asyncio.TimerHandle | None = None
        super().connection_made(self.coalescing)  # type: ignore[arg-type]
        self.watch_head()

    def data_received(self, data: bytes) -> None:
        if self.coalescing.drops(data):
            return
        super().data_received(data)
        if body_held(self) > HELD_BYTES:
            self.coalescing.pause_reading()  # the application asks for more (uvicorn resumes reading then)
        self.watch_head()

    def eof_received(self) -> None:
        """The client's end closed: a lingering connection is done."""
        if self.coalescing.is_closing():
            self.coalescing.abort()

    def connection_lost(self, exc: Exception | None) -> None:
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
            self.head_timer = asyncio.get_running_loop().call_later(HEAD_S, self.head_late)
        elif not waiting and self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def head_late(self) -> None:
        self.head_timer = None
        if waiting_for_a_request(self):
            self.coalescing.abort()
