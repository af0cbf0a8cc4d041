"""The shared idempotency store: two stores on one database behave as one (as two instances would), on SQLite
and PostgreSQL; a dead claim is taken over after its TTL; an unreachable store degrades to memory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine

from harness.store.engine import open_engine
from harness.store.idempotency import Abandoned, IdempotencyStore
from harness.store.shared_idempotency import FallbackIdempotency, SqlIdempotencyStore


@pytest.fixture
def two(store_url: str) -> Iterator[tuple[SqlIdempotencyStore, SqlIdempotencyStore]]:
    engines = [open_engine(store_url), open_engine(store_url)]
    stores = [SqlIdempotencyStore(e, window_s=3600, running_ttl_s=60) for e in engines]
    yield stores[0], stores[1]
    for store, engine in zip(stores, engines, strict=True):
        store.close()
        engine.dispose()


def test_one_claim_wins_and_the_other_gets_its_answer(two: tuple[SqlIdempotencyStore, SqlIdempotencyStore]) -> None:
    a, b = two
    first = a.claim("msg_1", "fp")
    second = b.claim("msg_1", "fp")
    assert first.owner and not second.owner and not second.conflict
    assert not second.future.done()
    a.complete("msg_1", {"status": "pass"})
    assert second.future.result(timeout=5) == {"status": "pass"}
    later = b.claim("msg_1", "fp")  # after completion: the stored answer at once
    assert not later.owner and later.future.result(timeout=0) == {"status": "pass"}


def test_another_body_is_a_conflict_on_either(two: tuple[SqlIdempotencyStore, SqlIdempotencyStore]) -> None:
    a, b = two
    assert a.claim("msg_2", "fp").owner
    assert b.claim("msg_2", "other").conflict
    assert a.claim("msg_2", "other").conflict  # the instance that holds it too
    a.complete("msg_2", {"status": "fail"})
    assert b.claim("msg_2", "other").conflict


def test_abandoned_keys_are_claimed_afresh(two: tuple[SqlIdempotencyStore, SqlIdempotencyStore]) -> None:
    a, b = two
    assert a.claim("msg_3", "fp").owner
    waiting = b.claim("msg_3", "fp")
    a.abandon("msg_3")
    with pytest.raises(Abandoned):
        waiting.future.result(timeout=5)
    assert b.claim("msg_3", "fp").owner


def test_a_claim_past_its_ttl_is_taken_over(store_url: str) -> None:
    engine = open_engine(store_url)
    dead = SqlIdempotencyStore(engine, window_s=3600, running_ttl_s=0.2)
    alive = SqlIdempotencyStore(engine, window_s=3600, running_ttl_s=0.2)
    try:
        assert dead.claim("msg_4", "fp").owner  # and its instance dies: never completes
        waiting = alive.claim("msg_4", "fp")
        with pytest.raises(Abandoned):
            waiting.future.result(timeout=5)
        assert alive.claim("msg_4", "fp").owner
    finally:
        dead.close()
        alive.close()
        engine.dispose()


def test_the_shared_store_is_bounded_in_answers_and_their_size(store_url: str) -> None:
    engine = open_engine(store_url)
    store = SqlIdempotencyStore(engine, window_s=3600, running_ttl_s=60, max_entries=2, max_answer_bytes=1000)
    try:
        for key in ("b1", "b2", "b3"):
            assert store.claim(key, "fp").owner
            store.complete(key, {"message": key})
        store.sweep()
        assert store.claim("b1", "fp").owner  # the oldest answer went at the sweep
        assert not store.claim("b3", "fp").owner
        assert store.claim("huge", "fp").owner
        store.complete("huge", {"message": "x" * 2000})  # over the answer cap: not kept
        assert store.claim("huge", "fp").owner
    finally:
        store.close()
        engine.dispose()


def test_an_unreachable_store_degrades_to_this_process(sqlite_store: str) -> None:
    engine = create_engine("postgresql+psycopg://u@127.0.0.1:1/none", connect_args={"connect_timeout": 1})
    shared = SqlIdempotencyStore(engine, window_s=3600, running_ttl_s=60)
    store = FallbackIdempotency(shared, IdempotencyStore(3600, 100))
    try:
        claim = store.claim("msg_5", "fp")
        assert claim.owner and store.degraded and "store unreachable" in store.degraded
        duplicate = store.claim("msg_5", "fp")
        store.complete("msg_5", {"status": "pass"})
        assert duplicate.future.result(timeout=1) == {"status": "pass"}
    finally:
        store.close()
        engine.dispose()
