"""The service's hook into the store: open it from settings, with the evaluations' recorder and shared idempotency."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine

from harness.core.lab import Lab
from harness.store.engine import open_engine
from harness.store.evaluations import EvaluationRecorder, Retention
from harness.store.idempotency import IdempotencyStore
from harness.store.records import RecordStore
from harness.store.shared_idempotency import FallbackIdempotency, SqlIdempotencyStore


@dataclass
class ServiceStore:
    """What a service with `--store` holds: the engine, the recorder and the shared idempotency store."""

    engine: Engine
    recorder: EvaluationRecorder
    idempotency: FallbackIdempotency

    @classmethod
    def open(
        cls, url: str, lab: Lab, retention: Retention, *, local: IdempotencyStore, running_ttl_s: float
    ) -> ServiceStore:
        """Connect and migrate (BadInput naming the URL when it cannot), then prune the lab once. `local`: the
        idempotency store of this process, for when the database does not answer (its bounds are the shared one's)."""
        engine = open_engine(url, where="--store (STEPEVAL_STORE_URL)")
        recorder = EvaluationRecorder(RecordStore(engine), lab, retention, source="service")
        recorder.prune()
        shared = SqlIdempotencyStore(
            engine,
            window_s=local.window_s,
            running_ttl_s=running_ttl_s,
            max_entries=local.max_entries,
            max_answer_bytes=local.max_answer_bytes,
        )
        return cls(engine, recorder, FallbackIdempotency(shared, local))

    def close(self) -> None:
        self.idempotency.close()
        self.engine.dispose()
