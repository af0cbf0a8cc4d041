"""The asyncio internal behind harness/_compat/asyncio.py: the test fails when it moves or changes shape."""

from __future__ import annotations

import asyncio
import inspect
import socket
from asyncio import selector_events

from harness._compat.asyncio import read_at_most


def test_a_socket_transport_reads_at_most_its_max_size() -> None:
    assert selector_events._SelectorSocketTransport.max_size == 256 * 1024
    assert "self._sock.recv(self.max_size)" in inspect.getsource(selector_events._SelectorSocketTransport)


def test_read_at_most_bounds_each_read_of_a_real_connection() -> None:
    sizes: list[int] = []

    class Counting(asyncio.Protocol):
        def data_received(self, data: bytes) -> None:
            sizes.append(len(data))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair()
        transport, _ = await loop.connect_accepted_socket(Counting, ours)
        assert read_at_most(transport, 1024)
        theirs.sendall(b"x" * 64 * 1024)
        while sum(sizes) < 64 * 1024:
            await asyncio.sleep(0.01)
        transport.close()
        theirs.close()

    asyncio.run(main())
    assert max(sizes) <= 1024 and sum(sizes) == 64 * 1024
