"""Alembic's environment: always given a live connection by harness.store.engine (no alembic.ini)."""

from __future__ import annotations

from alembic import context

from harness.store.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
