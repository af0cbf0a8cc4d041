"""Upstream connections that know which request of which evaluation they carry, so that when an evaluation ends
the requests it still has upstream are cut (their sockets shut down) and the gateway's threads forwarding them
end at once, instead of waiting up to the read timeout on a slow endpoint the next evaluation then shares.

The gateway's handler thread marks the flight it forwards (`carrying`); each request a connection sends while
marked is registered on that flight (a connection kept alive carries one flight at a time: only the last one it
was lent to may cut it).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import Any, Protocol

import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection


class Carrier(Protocol):
    """What a flight can cut: a connection it was lent."""

    def cut(self, flight: object) -> None: ...


class Carrying(Protocol):
    """A request being forwarded, which takes note of the connections carrying it."""

    def carried_by(self, carrier: Carrier) -> None: ...


_marked = threading.local()


@contextlib.contextmanager
def carrying(flight: Carrying) -> Iterator[None]:
    """Requests this thread sends upstream meanwhile carry `flight`."""
    _marked.flight = flight
    try:
        yield
    finally:
        _marked.flight = None


class _Cuttable:
    """A connection that registers itself on the flight it carries and can be cut by that flight only."""

    sock: socket.socket | None
    _flight: object = None

    def _lend(self) -> None:
        flight = getattr(_marked, "flight", None)
        self._flight = flight
        if flight is not None:
            flight.carried_by(self)

    def cut(self, flight: object) -> None:
        """Shut down the socket (a thread blocked reading it wakes with an error) if it still carries `flight`."""
        sock = self.sock
        if self._flight is flight and sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class CuttableHTTPConnection(_Cuttable, HTTPConnection):
    def request(self, *args: Any, **kwargs: Any) -> None:
        self._lend()
        super().request(*args, **kwargs)


class CuttableHTTPSConnection(_Cuttable, HTTPSConnection):
    def request(self, *args: Any, **kwargs: Any) -> None:
        self._lend()
        super().request(*args, **kwargs)


class _HTTPPool(urllib3.HTTPConnectionPool):
    ConnectionCls = CuttableHTTPConnection


class _HTTPSPool(urllib3.HTTPSConnectionPool):
    ConnectionCls = CuttableHTTPSConnection


def pool_manager(**kwargs: Any) -> urllib3.PoolManager:
    """A PoolManager whose connections can be cut by the flight they carry."""
    manager = urllib3.PoolManager(**kwargs)
    manager.pool_classes_by_scheme = {"http": _HTTPPool, "https": _HTTPSPool}
    return manager
