"""Stopping `stepeval serve` (SIGTERM, as Kubernetes and docker stop it): the listener closes at once, the request in
flight is answered, the log says when it began and that nothing was abandoned, the process ends by the signal,
and its copies of the labs leave /tmp (docs/service.md, "Stopping the service")."""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.service import Sandbox, make_labs

pytestmark = pytest.mark.process

DEADLINE_S = 4  # long enough for the slow request to be running when SIGTERM comes


def until_running(service: Any) -> None:
    """Wait (20 s at most) until the service runs the request sent: the test fails, naming its log, if it never does."""
    for _ in range(400):
        if service.http.get("/readyz").json()["running"] == 1:
            return
        time.sleep(0.05)
    pytest.fail(f"the request never ran: {service.log_path.read_text()}")


def test_sigterm_closes_the_listener_answers_what_is_in_flight_and_removes_the_copies(
    service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    temporary = Path(tempfile.mkdtemp(prefix="stepeval-stop-"))  # short: the gateway's unix socket lives under it
    try:
        stop_with_one_request_in_flight(service_factory, moto_server, accounts, tmp_path, temporary)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def stop_with_one_request_in_flight(
    service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox], tmp_path: Path, temporary: Path
) -> None:
    labs = make_labs(tmp_path / "labs")
    service = service_factory(
        "stopping", "--labs", str(labs), "--workers", "1", "--deadline", str(DEADLINE_S),
        "--endpoint-url", moto_server, env={"TMPDIR": str(temporary)},
    )  # fmt: skip
    assert len([path for path in temporary.iterdir() if path.name.startswith("stepeval-labs-")]) == 1
    with ThreadPoolExecutor(1) as threads:
        slow = threads.submit(service.post, {"step": "02.01", "lab": "lab-alpha", "sandbox": accounts[0].ref()})
        until_running(service)
        service.process.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        with pytest.raises(httpx.ConnectError):  # no new connection once stopping
            httpx.get(f"{service.url}/healthz", timeout=5)
        answered = slow.result(timeout=DEADLINE_S + 30)
    assert answered.status_code == 200 and answered.json()["error"]["kind"] == "timeout", answered.text
    try:
        code = service.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        raise AssertionError(service.log_path.read_text()) from None
    assert code == -signal.SIGTERM  # 143 in a shell
    events = {line["event"]: line for line in service.log_lines() if line.get("event") in ("stopping", "stopped")}
    assert (events["stopping"]["in_flight"], events["stopping"]["drain_limit_s"]) == (1, DEADLINE_S)
    assert events["stopped"]["abandoned"] == 0
    assert [path.name for path in temporary.iterdir() if path.name.startswith("stepeval-labs-")] == []


def test_a_second_ctrl_c_stops_at_once_without_a_traceback_and_removes_the_copies(
    service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    temporary = Path(tempfile.mkdtemp(prefix="stepeval-stop-"))
    try:
        service = service_factory(
            "interrupted", "--labs", str(make_labs(tmp_path / "labs")), "--workers", "1", "--deadline", "30",
            "--endpoint-url", moto_server, env={"TMPDIR": str(temporary)},
        )  # fmt: skip
        with ThreadPoolExecutor(1) as threads:
            slow = threads.submit(service.post, {"step": "02.01", "lab": "lab-alpha", "sandbox": accounts[0].ref()})
            until_running(service)
            service.process.send_signal(signal.SIGINT)
            time.sleep(0.5)
            service.process.send_signal(signal.SIGINT)
            assert service.process.wait(timeout=30) == 130  # stepeval: interrupted
            answered = slow.result(timeout=30)  # not waited for: told so, in the problem body, never a 500
        assert (answered.status_code, answered.json()["error"]["code"]) == (503, "stopping"), answered.text
        assert answered.headers["retry-after"]
        log = service.log_path.read_text()
        assert "Traceback" not in log and "stepeval: interrupted" in log, log
        stopped = [line for line in service.log_lines() if line.get("event") == "stopped"]
        assert [line["abandoned"] for line in stopped] == [1], log
        assert list(temporary.iterdir()) == []  # its copies of the labs, the gateway's socket: nothing left
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
