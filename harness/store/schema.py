"""The store's tables (SQLAlchemy Core): what the Alembic migrations create, and what the queries use."""

from __future__ import annotations

from sqlalchemy import Column, Float, Index, Integer, LargeBinary, MetaData, String, Table, Text

metadata = MetaData()

evaluations = Table(
    "evaluations",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("created_at", Float, nullable=False),  # Unix seconds
    Column("lab", String(200), nullable=False),
    Column("step", String(8), nullable=False),
    Column("lab_version", String(64), nullable=False),
    Column("source", String(16), nullable=False),  # service | cli
    Column("request_id", String(300)),
    Column("status", String(8), nullable=False),
    Column("issue", Text),  # failure_context.issue of a fail
    Column("error_kind", String(32)),
    Column("duration_ms", Float, nullable=False),
    Column("region", String(32), nullable=False),
    Column("context", Text, nullable=False),  # JSON: resolved, events
    Column("answer", Text, nullable=False),  # JSON: the answer as given
    Column("calls", Integer, nullable=False),
    Column("recording", LargeBinary, nullable=False),  # zlib(JSON list of exchanges)
    Index("evaluations_lab_step_created", "lab", "step", "created_at"),
)

idempotency = Table(
    "idempotency",
    metadata,
    Column("key", String(300), primary_key=True),
    Column("fingerprint", String(64), nullable=False),
    Column("owner", String(32), nullable=False),
    Column("state", String(8), nullable=False),  # running | done
    Column("answer", Text),
    Column("updated_at", Float, nullable=False),
)
