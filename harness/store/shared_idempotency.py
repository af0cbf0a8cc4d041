"""The idempotency store shared by several service instances, in the record store's database.

A claim is one atomic upsert: insert the key as `running` with this claim's owner token, or take over a row
whose answer is past the window or whose runner is past its TTL (an instance killed mid-evaluation).
Duplicates that find the key running wait on a Future that a poller thread completes when the row turns
`done` (the stored answer), disappears or changes owner (Abandoned: the caller claims again). Same interface
as harness/store/idempotency.py's in-memory store: claim / complete / abandon.

Bounded as that one is: an answer over `max_answer_bytes` is handed to the duplicates waiting here and not kept
(its row goes: a later duplicate runs again), and each sweep keeps the newest `max_entries` answers only.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from sqlalchemy import Engine, and_, delete, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.sql import ColumnElement, Executable

from harness.core import logs
from harness.store.idempotency import MAX_ANSWER_BYTES, Abandoned, Claim, IdempotencyStore
from harness.store.schema import idempotency

POLL_S = 0.05
SWEEP_S = 60.0


class SqlIdempotencyStore:
    """claim / complete / abandon on a table, safe across threads, processes and machines."""

    def __init__(
        self,
        engine: Engine,
        *,
        window_s: float,
        running_ttl_s: float,
        max_entries: int | None = None,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
    ) -> None:
        self.engine = engine
        self.window_s = window_s
        self.running_ttl_s = running_ttl_s
        self.max_entries = max_entries
        self.max_answer_bytes = max_answer_bytes
        self._mine: dict[str, tuple[str, str, Future[dict[str, Any]]]] = {}  # key -> (token, fingerprint, future)
        self._waiting: dict[str, list[Future[dict[str, Any]]]] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._last_sweep = 0.0
        self._poller = threading.Thread(target=self._poll, name="stepeval-idempotency", daemon=True)
        self._poller.start()
        dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
        self._insert = dialect.insert

    def claim(self, key: str, fingerprint: str) -> Claim:
        """Take the key (owner), or learn who holds it; raises SQLAlchemyError when the store cannot be reached."""
        with self._lock:
            local = self._mine.get(key)
        if local is not None:  # this process runs it: wait for it here, no database round trip
            return Claim(False, local[2], conflict=local[1] != fingerprint)
        token, now = uuid.uuid4().hex, time.time()
        table = idempotency.c
        statement = (
            self._insert(idempotency)
            .values(key=key, fingerprint=fingerprint, owner=token, state="running", answer=None, updated_at=now)
            .on_conflict_do_update(
                index_elements=[table.key],
                set_={
                    "fingerprint": fingerprint,
                    "owner": token,
                    "state": "running",
                    "answer": None,
                    "updated_at": now,
                },
                where=or_(
                    and_(table.state == "done", table.updated_at < now - self.window_s),
                    and_(table.state == "running", table.updated_at < now - self.running_ttl_s),
                ),
            )
            .returning(table.owner)
        )
        with self.engine.begin() as connection:
            won = connection.execute(statement).scalar()
            row = (
                None if won == token else connection.execute(select(idempotency).where(table.key == key)).one_or_none()
            )
        if won == token:
            future: Future[dict[str, Any]] = Future()
            with self._lock:
                self._mine[key] = (token, fingerprint, future)
            return Claim(True, future)
        return self._claim_from_row(key, fingerprint, row, None)

    def _claim_from_row(self, key: str, fingerprint: str, row: Any, local: Future[dict[str, Any]] | None) -> Claim:
        future: Future[dict[str, Any]] = Future()
        if row is None and local is None:
            future.set_exception(Abandoned(key))  # gone between the upsert and the read: claim again
            return Claim(False, future)
        if row is not None and row.fingerprint != fingerprint:
            return Claim(False, future, conflict=True)
        if local is not None:
            with self.engine.connect() as connection:
                stored = connection.execute(select(idempotency.c.fingerprint).where(idempotency.c.key == key)).scalar()
            return Claim(False, local, conflict=stored is not None and stored != fingerprint)
        if row.state == "done":
            future.set_result(json.loads(row.answer))
            return Claim(False, future)
        with self._lock:
            self._waiting.setdefault(key, []).append(future)
        self._wake.set()
        return Claim(False, future)

    def complete(self, key: str, answer: dict[str, Any]) -> None:
        """Store the answer for the window (if this claim still holds the key, and it fits) and hand it to local
        duplicates."""
        text = json.dumps(answer, separators=(",", ":"), default=str)
        if len(text) > self.max_answer_bytes:  # not kept: the row goes, as an abandoned one's
            self._release(key, lambda mine: delete(idempotency).where(mine), lambda f: f.set_result(answer))
            return
        done = {"state": "done", "answer": text, "updated_at": time.time()}
        self._release(key, lambda mine: update(idempotency).where(mine).values(**done), lambda f: f.set_result(answer))

    def abandon(self, key: str) -> None:
        """Release the key without an answer: a later request with this id runs afresh."""
        self._release(key, lambda mine: delete(idempotency).where(mine), lambda f: f.set_exception(Abandoned(key)))

    def _release(
        self,
        key: str,
        statement: Callable[[ColumnElement[bool]], Executable],
        settle: Callable[[Future[dict[str, Any]]], None],
    ) -> None:
        """Write this claim's end (only if it still holds the key), then settle its local waiters either way."""
        with self._lock:
            token, _, future = self._mine.pop(key, (None, None, None))
        if token is None or future is None:
            return
        try:
            with self.engine.begin() as connection:
                connection.execute(statement(and_(idempotency.c.key == key, idempotency.c.owner == token)))
        finally:
            if not future.done():
                settle(future)

    def close(self) -> None:
        self._closed = True
        self._wake.set()

    def _poll(self) -> None:
        """Complete the futures of duplicates waiting on another instance's evaluation; sweep expired rows."""
        while not self._closed:
            self._wake.wait(SWEEP_S)
            self._wake.clear()
            try:
                while not self._closed and self._check_waiting():
                    time.sleep(POLL_S)
                if time.time() - self._last_sweep > SWEEP_S:
                    self.sweep()
            except SQLAlchemyError as exc:
                logs.log_line(event="store_unreachable", detail=type(exc).__name__)
                time.sleep(POLL_S * 10)
                self._wake.set()

    def _check_waiting(self) -> bool:
        """One look at the keys awaited; whether any are left."""
        with self._lock:
            keys = list(self._waiting)
        if not keys:
            return False
        with self.engine.connect() as connection:
            rows = {row.key: row for row in connection.execute(select(idempotency).where(idempotency.c.key.in_(keys)))}
        now = time.time()
        for key in keys:
            row = rows.get(key)
            if row is not None and row.state == "running" and row.updated_at >= now - self.running_ttl_s:
                continue
            with self._lock:
                futures = self._waiting.pop(key, [])
            for future in futures:
                if row is not None and row.state == "done":
                    future.set_result(json.loads(row.answer))
                else:
                    future.set_exception(Abandoned(key))
        return True

    def sweep(self) -> None:
        """Delete the rows past their window or TTL, and the answers past the newest `max_entries`."""
        now = time.time()
        self._last_sweep = now
        table = idempotency.c
        with self.engine.begin() as connection:
            connection.execute(
                delete(idempotency).where(
                    or_(
                        and_(table.state == "done", table.updated_at < now - self.window_s),
                        and_(table.state == "running", table.updated_at < now - self.running_ttl_s),
                    )
                )
            )
            if self.max_entries is not None:  # the newest max_entries answers stay
                oldest_kept = (
                    select(table.updated_at)
                    .where(table.state == "done")
                    .order_by(table.updated_at.desc())
                    .offset(max(self.max_entries - 1, 0))
                    .limit(1)
                    .scalar_subquery()
                )
                connection.execute(
                    delete(idempotency).where(and_(table.state == "done", table.updated_at < oldest_kept))
                )


class FallbackIdempotency:
    """The shared store while it answers; this process's memory while it does not (`degraded` says why).

    Evaluation is read-only, so a duplicate evaluated twice while the store is down is harmless; refusing every
    learner until the database is back is not. /healthz reports the degradation.
    """

    def __init__(self, shared: SqlIdempotencyStore, local: IdempotencyStore) -> None:
        self.shared = shared
        self.local = local
        self.degraded: str | None = None
        self._local_keys: set[str] = set()
        self._lock = threading.Lock()

    def claim(self, key: str, fingerprint: str) -> Claim:
        try:
            claim = self.shared.claim(key, fingerprint)
        except SQLAlchemyError as exc:
            self._degrade(exc)
            with self._lock:
                self._local_keys.add(key)
            return self.local.claim(key, fingerprint)
        self.degraded = None
        return claim

    def complete(self, key: str, answer: dict[str, Any]) -> None:
        if self._is_local(key):
            self.local.complete(key, answer)
            return
        try:
            self.shared.complete(key, answer)
        except SQLAlchemyError as exc:
            self._degrade(exc)

    def abandon(self, key: str) -> None:
        if self._is_local(key):
            self.local.abandon(key)
            return
        try:
            self.shared.abandon(key)
        except SQLAlchemyError as exc:
            self._degrade(exc)

    def close(self) -> None:
        self.shared.close()

    def _is_local(self, key: str) -> bool:
        with self._lock:
            if key in self._local_keys:
                self._local_keys.discard(key)
                return True
        return False

    def _degrade(self, exc: SQLAlchemyError) -> None:
        cause = type(getattr(exc, "orig", None) or exc).__name__
        reason = f"store unreachable ({cause}): idempotency is per instance until it is back"
        if self.degraded is None:
            logs.log_line(event="store_unreachable", detail=reason)
        self.degraded = reason
