"""Recorded evaluations: write one (one transaction, all of it or nothing), read them back, prune by age and count."""

from __future__ import annotations

import json
import time
import uuid
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, delete, func, select

from harness.core.contract import Answer, ContextInput
from harness.store.recording import INCOMPLETE
from harness.store.schema import evaluations

PAGE = 200


@dataclass(frozen=True)
class NewRecord:
    """An evaluation to record, as the caller knows it."""

    lab: str
    step: str
    lab_version: str
    source: str
    request_id: str | None
    region: str
    context: ContextInput
    answer: Answer
    exchanges: list[dict[str, Any]]


@dataclass(frozen=True)
class StoredRecord:
    """An evaluation read back, one field per column; the JSON columns are read by the methods, which raise
    CorruptRecording when they cannot be."""

    id: str
    created_at: float
    lab: str
    step: str
    lab_version: str
    source: str
    request_id: str | None
    status: str
    issue: str | None
    error_kind: str | None
    duration_ms: float
    region: str
    context: str
    answer: str
    calls: int
    recording: bytes

    def read_context(self) -> dict[str, Any]:
        return _json_object(self.id, "context", self.context)

    def read_answer(self) -> dict[str, Any]:
        return _json_object(self.id, "answer", self.answer)

    def exchanges(self) -> list[dict[str, Any]]:
        """The recorded exchanges, in order (without the entry saying the recording is incomplete)."""
        return [entry for entry in self._recording() if not (isinstance(entry, dict) and INCOMPLETE in entry)]

    def incomplete(self) -> dict[str, Any] | None:
        """What the recording lacks, as the gateway's tap counted it (harness/store/recording.py), or None."""
        for entry in self._recording():
            if isinstance(entry, dict) and isinstance(entry.get(INCOMPLETE), dict):
                return dict(entry[INCOMPLETE])
        return None

    def _recording(self) -> list[Any]:
        try:
            raw = zlib.decompress(self.recording)
        except zlib.error as exc:
            raise CorruptRecording(self.id, f"recording: not zlib data ({exc})") from None
        value = _json(self.id, "recording", raw)
        if not isinstance(value, list):
            raise CorruptRecording(self.id, "recording: not a list of exchanges")
        return value


class CorruptRecording(Exception):
    """A stored evaluation that cannot be read back; reported by id and skipped."""

    def __init__(self, record_id: str, detail: str) -> None:
        super().__init__(f"evaluation {record_id}: {detail}")
        self.record_id = record_id


def _json(record_id: str, what: str, raw: str | bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CorruptRecording(record_id, f"{what}: not JSON ({exc})") from None


def _json_object(record_id: str, what: str, raw: str | bytes) -> dict[str, Any]:
    found = _json(record_id, what, raw)
    if not isinstance(found, dict):
        raise CorruptRecording(record_id, f"{what}: not a JSON object")
    return found


def calls(recording: list[dict[str, Any]]) -> int:
    """The AWS calls an evaluation made: those recorded and those dropped past the recording's cap."""
    count = 0
    for entry in recording:
        summary = entry.get(INCOMPLETE)
        count += int(summary.get("exchanges_dropped", 0)) if isinstance(summary, dict) else 1
    return count


def record_row(record: NewRecord, now: float | None = None) -> dict[str, Any]:
    """The row for one evaluation (the exchanges compressed: they are mostly repetitive XML and JSON)."""
    answer = record.answer
    return {
        "id": uuid.uuid4().hex,
        "created_at": now if now is not None else time.time(),
        "lab": record.lab,
        "step": record.step,
        "lab_version": record.lab_version,
        "source": record.source,
        "request_id": record.request_id,
        "status": answer.status,
        "issue": answer.failure_context.issue if answer.failure_context else None,
        "error_kind": answer.error.kind if answer.error else None,
        "duration_ms": answer.duration_ms,
        "region": record.region,
        "context": record.context.model_dump_json(),
        "answer": answer.model_dump_json(),
        "calls": calls(record.exchanges),
        "recording": zlib.compress(json.dumps(record.exchanges, separators=(",", ":")).encode(), 6),
    }


class RecordStore:
    """The evaluations table of one store."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(self, record: NewRecord, *, now: float | None = None) -> str:
        """Write one evaluation in one transaction; its id."""
        row = record_row(record, now)
        with self.engine.begin() as connection:
            connection.execute(evaluations.insert(), row)
        return str(row["id"])

    def select(
        self, lab: str | None = None, step: str | None = None, since: float | None = None
    ) -> Iterator[StoredRecord]:
        """Evaluations oldest first, read a page at a time."""
        query = select(evaluations).order_by(evaluations.c.created_at, evaluations.c.id)
        if lab is not None:
            query = query.where(evaluations.c.lab == lab)
        if step is not None:
            query = query.where(evaluations.c.step == step)
        if since is not None:
            query = query.where(evaluations.c.created_at >= since)
        with self.engine.connect() as connection:
            result = connection.execution_options(yield_per=PAGE).execute(query)
            for row in result:
                yield StoredRecord(**{**row._asdict(), "recording": bytes(row.recording)})

    def count(self, lab: str | None = None) -> int:
        query = select(func.count()).select_from(evaluations)
        if lab is not None:
            query = query.where(evaluations.c.lab == lab)
        with self.engine.connect() as connection:
            return int(connection.execute(query).scalar_one())

    def bytes_per_evaluation(self, lab: str | None = None) -> float:
        """Mean stored bytes of an evaluation's row content (context, answer, compressed recording)."""
        size = (
            func.length(evaluations.c.context)
            + func.length(evaluations.c.answer)
            + func.length(evaluations.c.recording)
        )
        query = select(func.avg(size))
        if lab is not None:
            query = query.where(evaluations.c.lab == lab)
        with self.engine.connect() as connection:
            return float(connection.execute(query).scalar_one() or 0.0)

    def prune(self, lab: str, *, max_age_s: float, max_count: int, now: float | None = None) -> int:
        """Drop `lab`'s evaluations older than `max_age_s` and beyond its newest `max_count`; how many went."""
        now = time.time() if now is None else now
        mine = evaluations.c.lab == lab
        with self.engine.begin() as connection:
            gone = connection.execute(delete(evaluations).where(mine, evaluations.c.created_at < now - max_age_s))
            removed = gone.rowcount or 0
            cutoff = connection.execute(
                select(evaluations.c.created_at)
                .where(mine)
                .order_by(evaluations.c.created_at.desc())
                .offset(max_count)
                .limit(1)
            ).scalar()
            if cutoff is not None:
                removed += (
                    connection.execute(delete(evaluations).where(mine, evaluations.c.created_at <= cutoff)).rowcount
                    or 0
                )
        return removed
