"""Misbehaving modules under concurrent load: a hang, a crash and a raise break only themselves; AWS errors
are `error` answers, never `fail`; a full queue is 429; every request has a deadline."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness.core.contract import TIMEOUT_ERROR
from tests.fixtures.service import SERVICE_LAB, Sandbox, Service, bucket_events


def ask(service: Service, sandbox: Sandbox, step: str, **body: object) -> dict:
    response = service.post({"step": step, "sandbox": sandbox.ref(), **body})
    assert response.status_code == 200, response.text
    return response.json()


def test_hang_crash_and_raise_do_not_break_the_others(
    misbehaving_service: Service, accounts: tuple[Sandbox, Sandbox]
) -> None:
    a, _ = accounts
    service = misbehaving_service
    restarts = service.metric("stepeval_worker_restarts_total")
    timeouts = service.metric("stepeval_timeouts_total")
    bad = {"02.02": "timeout", "02.03": "timeout", "02.06": "crash", "02.04": "exception"}
    good = ["03.02", "03.04", "02.01"] * 8  # throttled then answered; a plain list; no credentials of its own
    expected = {"03.02": "pass", "03.04": "pass", "02.01": "fail"}
    order: list[str] = []
    lock = threading.Lock()

    def one(step: str) -> tuple[str, dict]:
        answer = ask(service, a, step)
        with lock:
            order.append(step)
        return step, answer

    with ThreadPoolExecutor(12) as threads:
        results = list(threads.map(one, [*bad, *good]))
    for step, answer in results:
        if step in bad:
            assert answer["status"] == "error" and answer["error"]["kind"] == bad[step], (step, answer)
            assert "not a verdict" in answer["message"]
        else:
            assert answer["status"] == expected[step], (step, answer)
    print(f"\ncompletion order: {' '.join(order)}")
    assert service.metric("stepeval_worker_restarts_total") >= restarts + 3  # two killed at timeout, one crashed
    assert service.metric("stepeval_timeouts_total") == timeouts + 2
    # the pool is whole again: every worker answers
    with ThreadPoolExecutor(6) as threads:
        again = list(threads.map(lambda _: ask(service, a, "02.01"), range(6)))
    assert {answer["status"] for answer in again} == {"fail"}


def test_throttling_is_retried(misbehaving_service: Service, accounts: tuple[Sandbox, Sandbox]) -> None:
    answer = ask(misbehaving_service, accounts[0], "03.02")
    assert answer["status"] == "pass" and answer["message"] == "answered after 2 attempts"


def test_throttling_that_persists_is_an_aws_error(
    misbehaving_service: Service, accounts: tuple[Sandbox, Sandbox]
) -> None:
    answer = ask(misbehaving_service, accounts[0], "03.03")
    assert answer["status"] == "error" and answer["error"]["kind"] == "aws"
    assert "Throttling" in answer["error"]["detail"]


def test_access_denied_is_an_aws_error(misbehaving_service: Service, accounts: tuple[Sandbox, Sandbox]) -> None:
    answer = ask(misbehaving_service, accounts[0], "03.01")
    assert answer["status"] == "error" and answer["error"]["kind"] == "aws"
    assert "AccessDenied" in answer["error"]["detail"]


def test_a_write_is_refused_and_changes_nothing(
    misbehaving_service: Service, accounts: tuple[Sandbox, Sandbox]
) -> None:
    a, _ = accounts
    answer = ask(misbehaving_service, a, "01.01", events=bucket_events("alpha-bucket"))
    assert answer["status"] == "error" and answer["error"]["kind"] == "read_only"
    s3 = a.learner("s3")
    with pytest.raises(s3.exceptions.ClientError) as raised:
        s3.get_bucket_policy(Bucket="alpha-bucket")
    assert raised.value.response["Error"]["Code"] == "NoSuchBucketPolicy"


def test_an_unreachable_endpoint_is_an_error_not_a_fail(service_factory, accounts: tuple[Sandbox, Sandbox]) -> None:
    dead = service_factory(
        "dead-endpoint", "--lab", str(SERVICE_LAB), "--workers", "1", "--endpoint-url", "http://127.0.0.1:9"
    )
    answer = ask(dead, accounts[0], "01.01", events=bucket_events("alpha-bucket"))
    assert answer["status"] == "error" and answer["success"] is False
    assert answer["error"]["kind"] == "service"  # the service's own endpoint: its operator's to fix
    assert "AssumeRole" in answer["error"]["detail"]


def test_a_full_queue_is_429_and_the_deadline_ends_the_rest(service_factory, accounts: tuple[Sandbox, Sandbox]) -> None:
    small = service_factory(
        "small", "--lab", str(SERVICE_LAB), "--workers", "1", "--queue", "1", "--deadline", "4",
        "--endpoint-url", accounts[0].endpoint_url,
    )  # fmt: skip
    a, _ = accounts
    with ThreadPoolExecutor(2) as threads:
        slow = [threads.submit(small.post, {"step": "02.01", "sandbox": a.ref()}) for _ in range(2)]
        for _ in range(400):  # until both are admitted (bounded: 20 s)
            if small.http.get("/readyz").json()["in_flight"] == 2:
                break
            time.sleep(0.05)
        refused = small.post({"step": "01.01", "sandbox": a.ref(), "events": bucket_events("alpha-bucket")})
        assert refused.status_code == 429, refused.text
        assert refused.headers["retry-after"] == "2"
        assert refused.json()["error"]["code"] == "busy"
        first, second = sorted((f.result() for f in slow), key=lambda r: r.status_code)
    assert first.status_code == 200, first.text
    timed_out = first.json()
    assert timed_out["error"]["kind"] == "timeout"  # cut to the 4 s deadline, not the step's 60 s
    assert "the request's deadline (STEPEVAL_DEADLINE_S, 4 s," in timed_out["error"]["detail"]
    assert timed_out["error"]["detail"].endswith("of its 60 s timeout")
    assert timed_out["message"] == TIMEOUT_ERROR and timed_out["retry_after_s"] is None
    said = [line for line in small.log_lines() if line.get("event") == "deadline_below_step_timeout"]
    assert said and said[0]["count"] == 3 and "service-tests:02.01 (60 s)" in said[0]["steps"]  # 10 s, 10 s, 60 s
    assert second.status_code in (200, 503), second.text
    if second.status_code == 503:
        assert second.json()["error"]["code"] == "deadline" and "retry-after" in second.headers
    else:
        assert second.json()["error"]["kind"] == "timeout"
    assert small.metric("stepeval_worker_restarts_total") >= 1
    # and it answers again
    answer = small.post({"step": "01.01", "sandbox": a.ref(), "events": bucket_events("alpha-bucket")})
    assert answer.status_code == 200 and answer.json()["status"] == "pass"
