"""Alembic migrations of the record store, run by `harness.store.engine.open_engine` on every start."""
