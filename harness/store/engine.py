"""A store URL to a migrated SQLAlchemy engine: `sqlite:///path.db` or `postgresql://...` (psycopg 3).

A URL that does not parse, names another database, or cannot be reached is BadInput naming it (password
hidden). SQLite runs in WAL mode with a busy timeout, so several processes on one machine may share a file.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from harness.core.errors import BadInput

MIGRATIONS = Path(__file__).parent / "migrations"
MIGRATION_LOCK = 0x5E7E7A1  # pg_advisory_lock key: one instance migrates at a time
DRIVERS = {"sqlite": "sqlite", "postgresql": "postgresql+psycopg", "postgres": "postgresql+psycopg"}


def parse_store_url(raw: str, *, where: str = "--store") -> URL:
    """The URL with its driver chosen; BadInput naming it when it is not a SQLite or PostgreSQL URL."""
    try:
        url = make_url(raw)
    except ArgumentError:
        raise BadInput(f"{where} {raw!r}: not a store URL (sqlite:///path/to/file.db or postgresql://...)") from None
    backend = url.drivername.split("+")[0]
    if backend not in DRIVERS:
        raise BadInput(f"{where} {without_password(url)}: unsupported database {backend!r} (sqlite or postgresql)")
    if backend == "sqlite" and not url.database:
        raise BadInput(f"{where} {without_password(url)}: give a file, sqlite:///path/to/file.db")
    return url.set(drivername=DRIVERS[backend])


def without_password(url: URL) -> str:
    """The URL as an error names it: its password hidden."""
    return url.render_as_string(hide_password=True)


def open_engine(raw: str, *, where: str = "--store") -> Engine:
    """A connected engine with the schema migrated to the newest revision; BadInput when unreachable."""
    url = parse_store_url(raw, where=where)
    if url.drivername == "sqlite":
        folder = Path(url.database or "").expanduser().resolve().parent
        if not folder.is_dir():
            raise BadInput(f"{where} {without_password(url)}: cannot reach: no directory {folder}")
        engine = create_engine(url, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        engine = create_engine(
            url, pool_size=8, max_overflow=24, pool_pre_ping=True, connect_args={"connect_timeout": 5}
        )
    try:
        migrate(engine)
    except SQLAlchemyError as exc:
        engine.dispose()
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise BadInput(f"{where} {without_password(url)}: cannot reach: {reason}") from None
    return engine


def _sqlite_pragmas(dbapi_connection: object, _record: object) -> None:
    cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def migrate(engine: Engine) -> None:
    """Alembic upgrade to head, under a PostgreSQL advisory lock so that instances starting together take turns."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
