"""A bounded load test on loopback: 500 signed requests, 50 at a time; every one answered, none lost.

Latencies are printed (run with -s to see them), never asserted: this machine's speed is not the subject.
"""

from __future__ import annotations

import statistics
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.fixtures.service import ACCOUNT_A, Sandbox, Service, bucket_events

REQUESTS, CONCURRENCY = 500, 50


def test_500_requests_at_50_concurrent(service: Service, accounts: tuple[Sandbox, Sandbox]) -> None:
    refs = {sandbox.account_id: sandbox.ref() for sandbox in accounts}
    ids = [f"load-{uuid.uuid4().hex}" for _ in range(REQUESTS)]
    before = service.metric("stepeval_answers_total", status="pass", kind="none")

    with httpx.Client(base_url=service.url, timeout=120, limits=httpx.Limits(max_connections=CONCURRENCY)) as client:

        def one(index: int) -> tuple[str, int, dict, float]:
            account = list(refs)[index % 2]
            body = {"step": "01.01", "sandbox": refs[account], "events": bucket_events("alpha-bucket", "beta-bucket")}
            started = time.perf_counter()
            response = service.post(body, msg_id=ids[index], client=client)
            return account, response.status_code, response.json(), time.perf_counter() - started

        started = time.perf_counter()
        with ThreadPoolExecutor(CONCURRENCY) as threads:
            results = list(threads.map(one, range(REQUESTS)))
        wall = time.perf_counter() - started

    assert [status for _, status, _, _ in results] == [200] * REQUESTS
    assert sorted(answer["request_id"] for _, _, answer, _ in results) == sorted(ids)  # none lost, none mixed up
    for account, _, answer, _ in results:
        assert answer["status"] == "pass", answer
        own = "alpha-bucket" if account == ACCOUNT_A else "beta-bucket"
        assert answer["validated"][0]["id"] == own
    assert service.metric("stepeval_answers_total", status="pass", kind="none") == before + REQUESTS

    latencies = sorted(latency * 1000 for *_, latency in results)
    p50 = statistics.median(latencies)
    p99 = latencies[int(len(latencies) * 0.99) - 1]
    print(
        f"\nload: {REQUESTS} requests, {CONCURRENCY} concurrent, 2 workers: {REQUESTS / wall:.0f} req/s, "
        f"p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {latencies[-1]:.0f} ms"
    )
