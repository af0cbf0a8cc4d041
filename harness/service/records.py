"""The service's hook into the store: open it from settings, with a recorder per lab version and shared idempotency."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from sqlalchemy import Engine

from harness.core.lab import Lab
from harness.store.engine import open_engine
from harness.store.evaluations import EvaluationRecorder, Retention
from harness.store.idempotency import IdempotencyStore
from harness.store.records import RecordStore
from harness.store.shared_idempotency import FallbackIdempotency, SqlIdempotencyStore


@dataclass
class ServiceStore:
    """What a service with `--store` holds: the engine, the records, the shared idempotency store, and one recorder
    per lab version served (each lab pruned to its retention)."""

    engine: Engine
    records: RecordStore
    retention: Retention
    idempotency: FallbackIdempotency
    _recorders: dict[tuple[str, str], EvaluationRecorder] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def open(cls, url: str, retention: Retention, *, local: IdempotencyStore, running_ttl_s: float) -> ServiceStore:
        """Connect and migrate (BadInput naming the URL when it cannot). `local`: the idempotency store of this
        process, for when the database does not answer (its bounds are the shared one's)."""
        engine = open_engine(url, where="--store (STEPEVAL_STORE_URL)")
        shared = SqlIdempotencyStore(
            engine,
            window_s=local.window_s,
            running_ttl_s=running_ttl_s,
            max_entries=local.max_entries,
            max_answer_bytes=local.max_answer_bytes,
        )
        return cls(engine, RecordStore(engine), retention, FallbackIdempotency(shared, local))

    def recorder(self, lab: Lab, version: str) -> EvaluationRecorder:
        """The recorder of one lab version (made, and its lab pruned once, at its first evaluation)."""
        key = (lab.spec.project, version)
        with self._lock:
            recorder = self._recorders.get(key)
            if recorder is None:
                recorder = EvaluationRecorder(self.records, lab, self.retention, source="service", version=version)
                self._recorders[key] = recorder
                fresh = True
            else:
                fresh = False
        if fresh:
            recorder.prune()
        return recorder

    def close(self) -> None:
        self.idempotency.close()
        self.engine.dispose()
