"""asyncio's internals that `stepeval serve` relies on (harness/service/transport.py), and nothing else.

Internal touched (checked on Python 3.11 to 3.13; tests/_compat/test_asyncio.py fails when it moves):
- `asyncio.selector_events._SelectorSocketTransport.max_size`, the most one `recv` of a connection reads (256 KiB),
  set per transport: what a client sends waits in the kernel's buffer until the application asks for it.
"""

from __future__ import annotations

import asyncio


def read_at_most(transport: asyncio.BaseTransport, size: int) -> bool:
    """Each read of `transport` takes at most `size` bytes; whether it could be set (a transport of another kind
    keeps its own)."""
    if not isinstance(getattr(transport, "max_size", None), int):
        return False
    transport.max_size = size  # type: ignore[attr-defined]
    return True
