"""Worker affinity: a job goes to an idle worker that last served the same credentials, when there is one.

A worker keeps one session for its life and the latest account's clients; switching accounts costs new
clients (botocore builds each client's class anew: about 8 ms of CPU for ec2, against 0.1 ms for a cached
one). A learner's steps arrive one after another, so sending them to the worker that still holds that
account's clients saves that work. Nothing more is held than before: each worker still keeps only its latest
account's credentials.
"""

from __future__ import annotations

import threading
from typing import Any

from harness.isolation.gateway import Gateway
from harness.pool import Outcome, WorkerPool


class AffinePool:
    """`size` single-worker pools behind the WorkerPool interface the Runner uses (submit, size, restarts)."""

    def __init__(self, size: int, preload: tuple[str, ...] | None = None) -> None:
        self.size = size
        self.preload = preload
        self.gateway = Gateway()
        self._pools = [WorkerPool(1, preload, self.gateway) for _ in range(size)]
        self._last: list[str | None] = [None] * size
        self._idle = list(range(size))  # least recently used first
        self._cond = threading.Condition()

    @property
    def restarts(self) -> int:
        return sum(pool.restarts for pool in self._pools)

    def start(self, count: int | None = None) -> None:
        for pool in self._pools[: count or self.size]:
            pool.start()

    def submit(self, job: dict[str, Any], timeout_s: float) -> Outcome:
        key = ((job.get("sandbox") or {}).get("credentials") or {}).get("access_key")
        with self._cond:
            while not self._idle:
                self._cond.wait()
            index = next((i for i in self._idle if key is not None and self._last[i] == key), self._idle[0])
            self._idle.remove(index)
        try:
            return self._pools[index].submit(job, timeout_s)
        finally:
            with self._cond:
                if key is not None:
                    self._last[index] = key
                self._idle.append(index)
                self._cond.notify()

    def close(self) -> None:
        for pool in self._pools:
            pool.close()
        self.gateway.close()

    def __enter__(self) -> AffinePool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
