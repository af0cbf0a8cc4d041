"""A real PostgreSQL server per test session (pytest-postgresql, loopback TCP, run as `postgres` when we are
root) and store URLs on it and on SQLite; the service fixtures of tests/service."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_postgresql import factories
from pytest_postgresql.executors import PostgreSQLExecutor

from tests.service.conftest import accounts, service_factory  # noqa: F401  (fixtures shared with tests/service)

PG_CTL = str(Path(__file__).with_name("pg_ctl_unprivileged"))

postgresql_server = factories.postgresql_proc(executable=PG_CTL, host="127.0.0.1", port=None, user="postgres")
postgresql_db = factories.postgresql("postgresql_server")


def pg_url(server: PostgreSQLExecutor, dbname: str) -> str:
    return f"postgresql://{server.user}@{server.host}:{server.port}/{dbname}"


@pytest.fixture
def pg_store(postgresql_server: PostgreSQLExecutor, postgresql_db: object) -> str:
    """A fresh, empty PostgreSQL database for this test (dropped after it)."""
    return pg_url(postgresql_server, postgresql_server.dbname)


@pytest.fixture
def sqlite_store(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'store.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """The same test on the embedded store and on PostgreSQL."""
    yield request.getfixturevalue("sqlite_store" if request.param == "sqlite" else "pg_store")
