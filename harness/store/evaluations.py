"""One lab's evaluations written to the record store (by `stepeval run --store` and the service), kept to the lab's
retention."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from sqlalchemy.exc import SQLAlchemyError

from harness.core import logs
from harness.core.contract import Answer, ContextInput
from harness.core.lab import Lab
from harness.core.lab_version import lab_version
from harness.store.recording import RecordingTap
from harness.store.records import NewRecord, RecordStore

PRUNE_EVERY = 100  # recordings between two retention passes
DAY_S = 86_400.0


@dataclass(frozen=True)
class Retention:
    """How long, and how many, of one lab's evaluations are kept."""

    max_age_days: float
    max_evaluations: int


class EvaluationRecorder:
    """Records one lab's evaluations (never failing the evaluation itself) and prunes them to its retention."""

    def __init__(
        self, records: RecordStore, lab: Lab, retention: Retention, *, source: str, version: str | None = None
    ) -> None:
        """`version`: the lab's version as served (harness/core/lab_version.py); by default, its files' now."""
        self.records = records
        self.lab = lab
        self.retention = retention
        self.source = source
        self.failures = 0
        self.version = version or lab_version(lab)
        self._since_prune = 0
        self._lock = threading.Lock()

    def tap(self) -> RecordingTap:
        return RecordingTap()

    def record(
        self,
        step: str,
        request_id: str | None,
        region: str,
        context: ContextInput,
        answer: Answer,
        recorder: RecordingTap,
    ) -> str | None:
        """Write it (one transaction); its id, or None after logging why it could not be written."""
        record = NewRecord(
            lab=self.lab.spec.project,
            step=step,
            lab_version=self.version,
            source=self.source,
            request_id=request_id,
            region=region,
            context=context,
            answer=answer,
            exchanges=recorder.recording(),
        )
        try:
            record_id = self.records.add(record)
        except SQLAlchemyError as exc:
            self.failures += 1
            logs.log_line(event="record_failed", request_id=request_id, detail=type(exc).__name__)
            return None
        with self._lock:
            self._since_prune += 1
            due = self._since_prune >= PRUNE_EVERY
            if due:
                self._since_prune = 0
        if due:
            self.prune()
        return record_id

    def prune(self) -> int:
        try:
            return self.records.prune(
                self.lab.spec.project,
                max_age_s=self.retention.max_age_days * DAY_S,
                max_count=self.retention.max_evaluations,
            )
        except SQLAlchemyError as exc:
            logs.log_line(event="prune_failed", detail=type(exc).__name__)
            return 0
