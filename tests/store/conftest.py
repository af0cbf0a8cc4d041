"""A real PostgreSQL server per test session (pytest-postgresql, loopback TCP, run as `postgres` when we are
root) and store URLs on it and on SQLite; the service fixtures of tests/service."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import port_for
import pytest
from pytest_postgresql import factories
from pytest_postgresql.executors import PostgreSQLExecutor
from pytest_postgresql.janitor import DatabaseJanitor

from tests.service.conftest import accounts, service_factory  # noqa: F401  (fixtures shared with tests/service)

PG_CTL = str(Path(__file__).with_name("pg_ctl_unprivileged"))


@contextmanager
def running_postgresql() -> Iterator[PostgreSQLExecutor]:
    """PostgreSQL on a free loopback port with a template database for pytest-postgresql's per-test databases;
    its data outside pytest's temporary directories (which a concurrent pytest run may prune, and a server whose
    postmaster.pid disappears shuts itself down)."""
    base = Path(tempfile.mkdtemp(prefix="stepeval-pg-"))
    base.chmod(0o1777)  # the server (perhaps another user: see pg_ctl_unprivileged) puts its socket here
    server = PostgreSQLExecutor(
        executable=PG_CTL,
        host="127.0.0.1",
        port=port_for.select_random(),
        datadir=str(base / "data"),
        unixsocketdir=str(base),
        logfile=str(base / "postgresql.log"),
        startparams="-w",
        dbname="tests",
        user="postgres",
    )
    try:
        server.start()
        server.wait_for_postgres()
        template = DatabaseJanitor(
            user=server.user,
            host=server.host,
            port=server.port,
            dbname=server.template_dbname,
            maintenance_dbname=server.maintenance_dbname,
            as_template=True,
        )
        template.init()
        yield server
    finally:
        if server.running():
            server.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def postgresql_server() -> Iterator[PostgreSQLExecutor]:
    """One server for the session's tests; each gets a fresh database (`pg_store`)."""
    with running_postgresql() as server:
        yield server


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
