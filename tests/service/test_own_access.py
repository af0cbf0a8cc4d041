"""The service's own way to AWS (harness/service/reachability.py), on a real `stepeval serve` over real HTTP: an
endpoint nobody listens on keeps it not ready, saying why, its hooks answer kind `service` (never "try again" to a
learner), and it becomes ready by itself once the endpoint answers (moto on the same loopback port)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Any

import pytest
from moto.server import ThreadedMotoServer

from harness.core.contract import SERVICE_ERROR
from harness.service.reachability import CHECK_CONFIG
from tests.fixtures.service import ACCOUNT_A, SERVICE_LAB, Sandbox, bucket_events

pytestmark = [pytest.mark.process, pytest.mark.moto]

RECOVERY_S = 30  # a loaded machine starts moto slowly
RECHECK = {"STEPEVAL_AWS_RECHECK_S": "0.2"}  # a failing check tried again at once, not every 5 s (the default)
# a check's whole call cut past one read timeout (not 10 s): a trickle that outlives each read is still what ends it
CHECK_TIMEOUT_S = CHECK_CONFIG.read_timeout + 1


def free_port() -> int:
    with socket.socket() as sock:  # a loopback port nobody listens on (bound, then closed)
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_endpoint_the_service_cannot_reach_keeps_it_not_ready_and_is_the_service_s_to_fix(
    service_factory: Any,
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    service = service_factory(
        "own-access", "--lab", str(SERVICE_LAB), "--workers", "1", "--endpoint-url", url, env=RECHECK
    )
    ready = service.http.get("/readyz")
    assert ready.status_code == 503 and ready.json()["status"] == "degraded"
    aws = ready.json()["aws"]
    assert (aws["endpoint"], aws["ok"]) == (url, False)
    assert aws["problem"] == (
        f"STS at {url} cannot be reached with the service's own credentials: the endpoint {url} (127.0.0.1:{port})"
        " did not answer: connection refused (NewConnectionError)"
    )
    lines = [line for line in service.log_lines() if line.get("event") == "aws_access"]
    assert lines == [{**lines[0], "endpoint": url, "ok": False, "problem": aws["problem"]}]

    sandbox = Sandbox(ACCOUNT_A, url)
    answer = service.post({"step": "01.01", "sandbox": sandbox.ref(), "events": bucket_events("alpha-bucket")}).json()
    assert (answer["status"], answer["error"]["kind"], answer["retry_after_s"]) == ("error", "service", None)
    assert answer["message"] == SERVICE_ERROR and "try again in a moment" not in answer["message"]
    assert answer["error"]["detail"].endswith(aws["problem"])
    assert service.metric("stepeval_answers_total", status="error", kind="service") == 1

    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    moto.start()
    try:
        ends = time.monotonic() + RECOVERY_S
        while (ready := service.http.get("/readyz")).status_code != 200 and time.monotonic() < ends:
            time.sleep(0.2)
        assert ready.status_code == 200, ready.text
        assert ready.json()["aws"] == {"endpoint": url, "ok": True, "problem": None}
        sandbox.learner("s3").create_bucket(Bucket="alpha-bucket")
        again = service.post({"step": "01.01", "sandbox": sandbox.ref(), "events": bucket_events("alpha-bucket")})
        assert again.json()["status"] == "pass", again.text
    finally:
        service.stop()  # before its endpoint goes: a stopping service logs no failed check
        moto.stop()


def test_readiness_and_the_log_show_no_password_or_token_of_the_endpoint(service_factory: Any) -> None:
    port = free_port()
    url = f"http://operator:hunter2@127.0.0.1:{port}/sts?token=proxy-secret#frag"
    service = service_factory("own-access-shown", "--lab", str(SERVICE_LAB), "--workers", "1", "--endpoint-url", url)
    ready = service.http.get("/readyz")
    assert ready.status_code == 503 and ready.json()["aws"]["endpoint"] == f"http://127.0.0.1:{port}/sts"
    assert ready.json()["aws"]["problem"].startswith(f"STS at http://127.0.0.1:{port}/sts cannot be reached")
    service.stop()
    for secret in ("hunter2", "proxy-secret", "operator"):
        assert secret not in ready.text and secret not in service.log_path.read_text(), secret


def test_an_endpoint_that_trickles_its_answer_leaves_the_service_degraded_not_starting(service_factory: Any) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    stop = threading.Event()

    def trickle() -> None:  # an answer's head, a byte a second: each read is within botocore's read timeout
        listener.settimeout(0.2)
        held = []
        while not stop.is_set():
            with contextlib.suppress(OSError):
                connection, _ = listener.accept()
                connection.sendall(b"HTTP/1.1 200 OK\r\n")
                held.append(connection)
            for connection in held:
                with contextlib.suppress(OSError):
                    connection.sendall(b"X")
            stop.wait(1)
        for connection in held:
            connection.close()

    server = threading.Thread(target=trickle, daemon=True)
    server.start()
    try:
        url = f"http://127.0.0.1:{port}"
        service = service_factory(
            "own-access-trickle", "--lab", str(SERVICE_LAB), "--workers", "1", "--endpoint-url", url,
            env={"STEPEVAL_AWS_CHECK_TIMEOUT_S": str(CHECK_TIMEOUT_S)},
        )  # fmt: skip
        ready = service.http.get("/readyz")  # the fixture waited for ready or degraded: the check did end
        assert ready.status_code == 503 and ready.json()["status"] == "degraded", ready.text
        assert ready.json()["aws"]["problem"] == (
            f"STS at {url} cannot be reached with the service's own credentials: no answer within {CHECK_TIMEOUT_S:g} s"
        )
        service.stop()
    finally:
        stop.set()
        server.join()
        listener.close()
