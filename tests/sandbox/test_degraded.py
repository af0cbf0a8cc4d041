"""Where namespaces are not available (forced here with STEPEVAL_NO_NAMESPACES=1), `stepeval run` still works and
says once which protections are off; `stepeval serve` refuses to start unless told --unsafe-no-sandbox, and
/healthz says what is off. Where they are, nothing is said and /healthz reports every protection on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from harness.sandbox.pool import NO_NAMESPACES_ENV, WorkerPool
from tests.conftest import LABS, STEPEVAL, MotoAccount
from tests.fixtures.service import LAUNCH, SECRET, SERVICE_LAB, Sandbox, bucket_events

pytestmark = pytest.mark.process

DEGRADED = {**os.environ, NO_NAMESPACES_ENV: "1"}


def run_seed_step(aws: MotoAccount, env: dict[str, str]) -> tuple[dict[str, Any], str]:
    aws.client("s3").create_bucket(Bucket="cli-bucket")
    context = {"events": [{"type": "AWS::S3::Bucket", "id": "cli-bucket"}]}
    command = [STEPEVAL, "run", "01.01", "--lab", str(LABS / "seed_examples"), "--endpoint-url", aws.endpoint_url]
    done = subprocess.run(
        [*command, "--context", "-"], input=json.dumps(context), capture_output=True, text=True, env=env, timeout=60
    )
    return json.loads(done.stdout), done.stderr


def test_the_pool_reports_what_is_off() -> None:
    with WorkerPool(1, namespaces=False) as pool:
        off = pool.protections().missing()
    assert {"pid_namespace", "mount_namespace", "network_namespace", "ipc_uts_namespaces"} <= set(off)
    with WorkerPool(1) as pool:
        assert pool.protections().full


def test_run_works_degraded_and_says_so_once(aws: MotoAccount) -> None:
    answer, stderr = run_seed_step(aws, DEGRADED)
    assert answer["status"] == "pass", answer
    assert stderr.count("sandbox degraded: off:") == 1 and "pid_namespace" in stderr


def test_run_says_nothing_with_the_full_sandbox(aws: MotoAccount) -> None:
    answer, stderr = run_seed_step(aws, dict(os.environ))
    assert answer["status"] == "pass", answer
    assert "sandbox degraded" not in stderr


def test_serve_refuses_to_start_degraded(moto_server: str) -> None:
    env = {**DEGRADED, "STEPEVAL_WEBHOOK_SECRET": SECRET}
    command = [sys.executable, "-c", LAUNCH, "serve", "--lab", str(SERVICE_LAB), "--port", "0"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2
    assert "refusing to start" in done.stderr and "--unsafe-no-sandbox" in done.stderr
    assert "pid_namespace" in done.stderr and "listening" not in done.stdout


def test_serve_runs_degraded_when_told_and_health_says_what_is_off(
    service_factory: Any, accounts: tuple[Sandbox, Sandbox], moto_server: str
) -> None:
    service = service_factory(
        "degraded",
        "--lab",
        str(SERVICE_LAB),
        "--workers",
        "1",
        "--endpoint-url",
        moto_server,
        "--unsafe-no-sandbox",
        env={NO_NAMESPACES_ENV: "1"},
    )
    sandbox = service.http.get("/healthz").json()["sandbox"]
    assert sandbox["full"] is False and sandbox["pid_namespace"] is False and sandbox["fresh_process"] is True
    a, _ = accounts
    body = {"step": "01.01", "sandbox": a.ref(), "events": bucket_events("alpha-bucket")}
    answer = service.post(body).json()
    assert answer["status"] == "pass", answer
    assert any(line.get("event") == "unsafe_no_sandbox" for line in service.log_lines())
