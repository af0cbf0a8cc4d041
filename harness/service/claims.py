"""One request's claim on its idempotency key (webhook-id, or Lambda's request id), the same for both front doors.

Claim the key; if another request holds it, wait for that one's answer and replay it; if it gave up (Abandoned),
claim again, at most MAX_CLAIM_TRIES times; the same key with another body is a conflict (409). The front doors
differ only in how they wait: the Lambda handler blocks its thread (`wait`), the HTTP app awaits on its event loop
(`wait_async`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from concurrent import futures
from typing import Any

from harness.service.problems import Problem, deadline_problem
from harness.store.idempotency import Abandoned, IdempotencyStore
from harness.store.shared_idempotency import FallbackIdempotency

MAX_CLAIM_TRIES = 3


class ClaimLoop:
    """Claims `key` until this request owns it or holds the answer of the request that did.

    Iterate `holders()`, waiting (`wait` or `wait_async`) on each future it yields; when the loop ends, `stored`
    is the answer to replay, or None: this request owns the key and evaluates inside `evaluating()`.
    """

    def __init__(
        self, store: IdempotencyStore | FallbackIdempotency, key: str, fingerprint: str, deadline: float
    ) -> None:
        self._store = store
        self._key = key
        self._fingerprint = fingerprint
        self._deadline = deadline
        self.stored: dict[str, Any] | None = None

    def holders(self) -> Iterator[futures.Future[dict[str, Any]]]:
        """The answer-to-be of the request holding the key, each time this one must wait for it; Problem 409 on
        a conflict, 503 when the deadline passed while waiting or the holders kept giving up."""
        for _ in range(MAX_CLAIM_TRIES):
            claim = self._store.claim(self._key, self._fingerprint)
            if claim.owner:
                return
            if claim.conflict:
                raise Problem(
                    409,
                    "idempotency_conflict",
                    "webhook-id: already used for a request with a different body",
                    field="webhook-id",
                )
            yield claim.future
            if not claim.future.done():
                raise deadline_problem("while a request with this webhook-id ran", 1)
            if not isinstance(claim.future.exception(), Abandoned):
                self.stored = claim.future.result()
                return
        raise deadline_problem("while requests with this webhook-id kept giving up", 1)

    def wait(self, holder: futures.Future[dict[str, Any]]) -> None:
        """Block until the holder's answer is in, or it gave up, or the deadline passed."""
        futures.wait([holder], timeout=self._left())

    async def wait_async(self, holder: futures.Future[dict[str, Any]]) -> None:
        """`wait` on the event loop (shielded: a timeout here leaves the holder's future alone)."""
        with contextlib.suppress(TimeoutError, Abandoned):
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(holder)), self._left())

    @contextlib.contextmanager
    def evaluating(self) -> Iterator[None]:
        """While the owner evaluates: should it fail (a refusal, a cancellation, a crash), the key is released,
        and a request waiting on it claims it again."""
        try:
            yield
        except BaseException:
            self._store.abandon(self._key)
            raise

    def _left(self) -> float:
        return max(self._deadline - time.monotonic(), 0)
