"""uvicorn's internals that `stepeval serve` relies on (harness/service/transport.py), and nothing else.

Internals touched (checked against uvicorn 0.29.0 and 0.54.0 by `make test-deps`, pinned < 0.55 in pyproject.toml;
tests/_compat/test_uvicorn.py fails when one moves):
- `uvicorn.protocols.http.h11_impl.H11Protocol`, subclassed: its `connection_made(transport)` is given a transport
  of ours, which sends what uvicorn `write`s in one write per turn of the event loop and passes uvicorn's other
  calls on (close, is_closing, get_extra_info, pause_reading, resume_reading, set_protocol): a call uvicorn starts
  making, e.g. `writelines`, would pass the coalescing by;
- `uvicorn.Config(http=<protocol class>)`: a class given for `http` is the protocol each connection gets;
- `H11Protocol.conn`, its h11 connection, whose `their_state` is `h11.IDLE` until a request's head has arrived
  (`waiting_for_a_request`), and its `data_received`, `eof_received`, `connection_lost` and
  `on_response_complete`, which a subclass extends; h11 is uvicorn's dependency, read only here;
- `H11Protocol.cycle.body`, the bytes of a request's body read and not yet received by the application
  (`body_held`); uvicorn resumes reading when the application asks for more;
- `H11Protocol.conn.trailing_data`, what h11 holds past the request it parsed (`pipelined`: the next request, sent
  before this one's answer), and `H11Protocol.cycle.keep_alive`, which uvicorn reads at a response's end to close the
  connection (`close_after_response`);
- `uvicorn.Server.shutdown(sockets)`, the coroutine that closes the listeners, waits for the requests in flight (at
  most `timeout_graceful_shutdown` seconds) and runs the application's shutdown, overridden by `StoppingServer` to
  say when it begins; `Server.force_exit` (a second Ctrl-C), after which uvicorn skips the application's shutdown,
  and `Server.lifespan.shutdown()`, which `StoppingServer` then runs itself: the lifespan left waiting was
  cancelled on the way out and uvicorn logged it with two tracebacks; the logger `uvicorn.error`, on which uvicorn
  logs each request's task cancelled then, with its traceback (`exc_info`), which `not_cancelled` filters out.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = [
    "H11Protocol",
    "StoppingServer",
    "body_held",
    "close_after_response",
    "pipelined",
    "waiting_for_a_request",
]


class StoppingServer(uvicorn.Server):
    """uvicorn's server, calling `on_stopping` as its shutdown begins (a signal received: nothing closed yet)."""

    def __init__(self, config: uvicorn.Config, on_stopping: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_stopping = on_stopping

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.on_stopping()
        await super().shutdown(sockets)
        if self.force_exit:  # the requests in flight are not waited for; the application still shuts down
            logging.getLogger("uvicorn.error").addFilter(not_cancelled)
            await self.lifespan.shutdown()


def not_cancelled(record: logging.LogRecord) -> bool:
    """Whether a record of uvicorn's is worth showing after a forced stop: not a request's task cancelled on the way
    out (uvicorn logs each with a traceback; the `stopped` line counts them as abandoned)."""
    return not (record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError))


def body_held(protocol: H11Protocol) -> int:
    """Bytes of the request's body read and not yet given to the application."""
    cycle = protocol.cycle
    return len(cycle.body) if cycle is not None else 0


def waiting_for_a_request(protocol: H11Protocol) -> bool:
    """Whether the connection awaits a request's head (none begun, or only part of one arrived)."""
    return protocol.conn.their_state is h11.IDLE


def pipelined(protocol: H11Protocol) -> bool:
    """Whether the client sent more after a whole request that is not answered yet (a pipelined request)."""
    return protocol.conn.their_state is h11.DONE and bool(protocol.conn.trailing_data[0])


def close_after_response(protocol: H11Protocol) -> None:
    """The connection is closed once the request being served is answered."""
    if protocol.cycle is not None:
        protocol.cycle.keep_alive = False
