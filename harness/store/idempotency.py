"""webhook-id is the idempotency key: the same id within the window gets the stored answer, run once.

A duplicate that arrives while the first is still running waits for it instead of running again. The same id
with a different body is a conflict (409), never a silent replay of another request's answer. This store lives
in one process: see docs/service.md for what several instances need.

Bounded by a time window, a number of answers and their bytes (each answer counted as its JSON): an answer larger
than `max_answer_bytes` is handed to the duplicates waiting for it, then not kept (a later duplicate runs again,
which a read-only evaluation allows), and the oldest answers go while the others exceed `max_bytes`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any


class Abandoned(Exception):
    """The request holding the key gave up without an answer (refused, or past its deadline)."""


MAX_BYTES = 64 * 1024 * 1024  # of the answers kept, as JSON
MAX_ANSWER_BYTES = 1024 * 1024  # of one answer kept


def answer_size(answer: dict[str, Any]) -> int:
    """What an answer counts against the bounds: its JSON's length."""
    return len(json.dumps(answer, separators=(",", ":"), default=str))


@dataclass
class _Entry:
    fingerprint: str
    future: Future[dict[str, Any]] = field(default_factory=Future)
    stored_at: float | None = None
    size: int = 0


@dataclass(frozen=True)
class Claim:
    """`owner`: this request must evaluate and then `complete` or `abandon`; else wait on `future`."""

    owner: bool
    future: Future[dict[str, Any]]
    conflict: bool = False


class IdempotencyStore:
    """In-memory, thread-safe, bounded by a time window, a number of entries and their bytes (the oldest go
    first)."""

    def __init__(
        self,
        window_s: float,
        max_entries: int,
        clock: Callable[[], float] = time.monotonic,
        *,
        max_bytes: int = MAX_BYTES,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
    ) -> None:
        self.window_s = window_s
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.max_answer_bytes = min(max_answer_bytes, max_bytes)
        self._clock = clock
        self._entries: dict[str, _Entry] = {}
        self._done: OrderedDict[str, float] = OrderedDict()  # completed keys, oldest first
        self._bytes = 0  # of the answers kept
        self._lock = threading.Lock()

    def claim(self, key: str, fingerprint: str) -> Claim:
        """Take the key, or learn who holds it: a stored answer, one in flight, or a conflicting body."""
        with self._lock:
            self._expire()
            entry = self._entries.get(key)
            if entry is None:
                entry = _Entry(fingerprint)
                self._entries[key] = entry
                return Claim(True, entry.future)
            return Claim(False, entry.future, conflict=entry.fingerprint != fingerprint)

    def complete(self, key: str, answer: dict[str, Any]) -> None:
        """Store the answer for the window (if it fits) and hand it to any duplicate waiting for it."""
        size = answer_size(answer)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return
            if self.window_s <= 0 or self.max_entries <= 0 or size > self.max_answer_bytes:
                del self._entries[key]
            else:
                entry.stored_at, entry.size = self._clock(), size
                self._done[key] = entry.stored_at
                self._bytes += size
                self._expire()
        if not entry.future.done():
            entry.future.set_result(answer)

    def abandon(self, key: str) -> None:
        """Release the key without an answer: a later request with this id runs afresh."""
        with self._lock:
            entry = self._entries.pop(key, None)
        if entry is not None and not entry.future.done():
            entry.future.set_exception(Abandoned(key))

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    @property
    def kept_bytes(self) -> int:
        """What the answers kept count against `max_bytes`."""
        with self._lock:
            return self._bytes

    def _expire(self) -> None:
        now = self._clock()
        while self._done:
            key, stored_at = next(iter(self._done.items()))
            fits = len(self._done) <= self.max_entries and self._bytes <= self.max_bytes
            if now - stored_at <= self.window_s and fits:
                break
            del self._done[key]
            entry = self._entries.pop(key, None)
            self._bytes -= entry.size if entry is not None else 0
