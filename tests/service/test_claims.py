"""The claim loop both front doors run on a request's idempotency key, on the real in-memory store: owned, replayed,
claimed again after an abandon, refused (409, 503), waited for on a thread (Lambda) and on an event loop (HTTP)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from harness.service.claims import MAX_CLAIM_TRIES, ClaimLoop
from harness.service.problems import Problem
from harness.store.idempotency import IdempotencyStore

ANSWER = {"status": "pass", "request_id": "msg_1"}


def store() -> IdempotencyStore:
    return IdempotencyStore(window_s=3600, max_entries=100)


def run_sync(claims: ClaimLoop) -> None:
    for holder in claims.holders():
        claims.wait(holder)


async def run_async(claims: ClaimLoop) -> None:
    for holder in claims.holders():
        await claims.wait_async(holder)


def later() -> float:
    return time.monotonic() + 60


def test_the_first_request_owns_its_key_and_waits_for_nobody() -> None:
    keys = store()
    claims = ClaimLoop(keys, "msg_1", "fp", later())
    assert list(claims.holders()) == [] and claims.stored is None
    assert not keys.claim("msg_1", "fp").owner  # held now


def test_a_duplicate_gets_the_answer_its_holder_stored() -> None:
    keys = store()
    keys.claim("msg_1", "fp")
    keys.complete("msg_1", ANSWER)
    claims = ClaimLoop(keys, "msg_1", "fp", later())
    run_sync(claims)
    assert claims.stored == ANSWER


def test_a_duplicate_on_a_thread_waits_for_the_holder_to_answer() -> None:
    keys = store()
    keys.claim("msg_1", "fp")
    claims = ClaimLoop(keys, "msg_1", "fp", later())
    duplicate = threading.Thread(target=run_sync, args=(claims,))
    duplicate.start()
    keys.complete("msg_1", ANSWER)
    duplicate.join()
    assert claims.stored == ANSWER


def test_a_duplicate_on_the_event_loop_waits_for_the_holder_to_answer() -> None:
    keys = store()
    keys.claim("msg_1", "fp")
    claims = ClaimLoop(keys, "msg_1", "fp", later())

    async def duplicate_and_holder() -> None:
        waiting = asyncio.create_task(run_async(claims))
        await asyncio.to_thread(keys.complete, "msg_1", ANSWER)
        await waiting

    asyncio.run(duplicate_and_holder())
    assert claims.stored == ANSWER


def test_the_same_key_with_another_body_is_a_conflict() -> None:
    keys = store()
    keys.claim("msg_1", "fp")
    with pytest.raises(Problem) as refused:
        run_sync(ClaimLoop(keys, "msg_1", "another body", later()))
    problem = refused.value
    assert (problem.status, problem.code, problem.field) == (409, "idempotency_conflict", "webhook-id")


@pytest.mark.parametrize("on_the_event_loop", [False, True])
def test_a_holder_that_gives_up_lets_the_duplicate_claim_the_key_again(on_the_event_loop: bool) -> None:
    keys = store()
    keys.claim("msg_1", "fp")
    claims = ClaimLoop(keys, "msg_1", "fp", later())
    holders = claims.holders()
    holder = next(holders)
    keys.abandon("msg_1")
    if on_the_event_loop:
        asyncio.run(claims.wait_async(holder))
    else:
        claims.wait(holder)
    assert list(holders) == [] and claims.stored is None  # claimed again: owned
    assert keys.claim("msg_1", "another body").conflict


def test_holders_that_keep_giving_up_end_in_a_503_after_the_last_try() -> None:
    keys = store()
    keys.claim("msg_1", "fp")
    claims = ClaimLoop(keys, "msg_1", "fp", later())
    tries = 0
    with pytest.raises(Problem) as refused:
        for holder in claims.holders():
            tries += 1
            keys.abandon("msg_1")  # the holder gives up...
            keys.claim("msg_1", "fp")  # ...and another request takes the key before this one claims again
            claims.wait(holder)
    assert tries == MAX_CLAIM_TRIES
    assert refused.value.status == 503 and "kept giving up" in refused.value.message
    assert refused.value.headers == {"Retry-After": "1"}


@pytest.mark.parametrize("on_the_event_loop", [False, True])
def test_a_deadline_passed_while_the_holder_runs_is_a_503_and_leaves_the_holder_alone(on_the_event_loop: bool) -> None:
    keys = store()
    keys.claim("msg_1", "fp")
    claims = ClaimLoop(keys, "msg_1", "fp", time.monotonic() - 1)
    with pytest.raises(Problem) as refused:
        if on_the_event_loop:
            asyncio.run(run_async(claims))
        else:
            run_sync(claims)
    assert refused.value.status == 503 and "while a request with this webhook-id ran" in refused.value.message
    waiting = keys.claim("msg_1", "fp")
    assert not waiting.owner and not waiting.future.cancelled()
    keys.complete("msg_1", ANSWER)  # the holder still answers, for the next duplicate
    assert waiting.future.result() == ANSWER


def test_an_owner_that_fails_releases_its_key_and_one_that_answers_keeps_it() -> None:
    keys = store()
    claims = ClaimLoop(keys, "msg_1", "fp", later())
    run_sync(claims)
    with pytest.raises(Problem), claims.evaluating():
        raise Problem(429, "busy", "full")
    assert keys.claim("msg_1", "fp").owner  # released: the next request runs afresh
    claims = ClaimLoop(keys, "msg_2", "fp", later())
    run_sync(claims)
    with claims.evaluating():
        pass
    assert not keys.claim("msg_2", "fp").owner
