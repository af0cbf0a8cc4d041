"""Store URLs: both databases migrate; bad URLs are one line naming them."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect

from harness.core.errors import BadInput
from harness.store.engine import open_engine


def test_both_databases_migrate_to_the_tables(store_url: str) -> None:
    engine = open_engine(store_url)
    try:
        assert {"evaluations", "idempotency", "alembic_version"} <= set(inspect(engine).get_table_names())
        open_engine(store_url).dispose()  # a second start finds the schema current
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("not a url", "not a store URL"),
        ("mysql://u@127.0.0.1/db", "unsupported database 'mysql'"),
        ("sqlite://", "give a file"),
        ("sqlite:////nonexistent/dir/x.db", "cannot reach: no directory /nonexistent/dir"),
        ("postgresql://u:hunter2@127.0.0.1:1/db", "cannot reach"),
    ],
)
def test_bad_urls_are_one_line_naming_the_url(url: str, says: str) -> None:
    with pytest.raises(BadInput) as caught:
        open_engine(url)
    message = str(caught.value)
    assert says in message and "\n" not in message
    assert "hunter2" not in message
    assert message.startswith("--store ")
