"""The sandbox's modes as the commands meet them. Without namespaces (forced here with STEPEVAL_NO_NAMESPACES=1, or
met under a container's filter) `stepeval run` still works and says once which protections are off and what that
leaves open; `stepeval serve` starts wherever the minimum set holds (confine.MINIMUM), names the mode and every
protection in its first log line and in /healthz, and refuses to start below it unless told --unsafe-no-sandbox."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.sandbox.confine import MINIMUM, SHARED_CHANNELS
from harness.sandbox.pool import NO_NAMESPACES_ENV, WorkerPool
from tests.conftest import LABS, STEPEVAL, MotoAccount
from tests.fixtures.modes import launcher
from tests.fixtures.service import LAUNCH, SECRET, SERVICE_LAB, Sandbox, bucket_events

pytestmark = pytest.mark.process

USER_DOC = Path(__file__).parents[2] / "docs" / "user.md"
DEGRADED = {**os.environ, NO_NAMESPACES_ENV: "1"}


def run_seed_step(aws: MotoAccount, env: dict[str, str]) -> tuple[dict[str, Any], str]:
    aws.client("s3").create_bucket(Bucket="cli-bucket")
    context = {"events": [{"type": "AWS::S3::Bucket", "id": "cli-bucket"}]}
    command = [STEPEVAL, "run", "01.01", "--lab", str(LABS / "seed_examples"), "--endpoint-url", aws.endpoint_url]
    done = subprocess.run(
        [*command, "--context", "-"], input=json.dumps(context), capture_output=True, text=True, env=env, timeout=60
    )
    return json.loads(done.stdout), done.stderr


def test_the_pool_reports_the_mode_and_what_is_off() -> None:
    with WorkerPool(1, namespaces=False) as pool:
        found = pool.protections()
    assert found.mode == "none" and found.sufficient
    assert {"pid_namespace", "mount_namespace", "network_namespace", "ipc_uts_namespaces"} <= set(found.missing())
    assert "a module sees the host's name" in found.gaps()
    assert "a module sees the host's processes and their command lines" not in found.gaps()  # Landlock: no /proc
    assert any(gap.startswith("a module may learn which process ids exist") for gap in found.gaps())
    assert any("Landlock governs no file's metadata" in gap for gap in found.gaps())  # stat, getxattr
    with WorkerPool(1) as pool:
        found = pool.protections()
    assert found.mode == "root" and found.full and found.gaps() == list(SHARED_CHANNELS)  # what no mode stops


def test_run_works_without_namespaces_and_says_so_once(aws: MotoAccount) -> None:
    answer, stderr = run_seed_step(aws, DEGRADED)
    assert answer["status"] == "pass", answer
    assert stderr.count("sandbox mode none: off:") == 1 and "pid_namespace" in stderr
    (said,) = [line for line in stderr.splitlines() if "sandbox mode" in line]
    quoted = [line for line in USER_DOC.read_text().splitlines() if line.startswith("stepeval: sandbox mode none")]
    assert len(quoted) == 1 and quoted[0].endswith(" (docs/service.md, 'What each mode protects')")
    if "landlock" not in said:  # docs/user.md quotes the line as a machine with Landlock prints it
        assert said == quoted[0]


def test_check_lint_and_new_say_nothing_of_the_sandbox(tmp_path) -> None:
    """They run no evaluation: no sandbox line, whatever the mode (stepeval check imports modules in workers)."""
    lab = tmp_path / "lab"
    shutil.copytree(LABS / "seed_examples", lab)
    spec = lab / "specs" / "seed-examples.yaml"
    queue = '      - id: "03"\n        outputs: [{name: 01_03_queue, type: AWS::SQS::Queue}]\n'
    spec.write_text(spec.read_text() + queue)
    for command in (["new", "01.03"], ["check"], ["lint"]):
        done = subprocess.run(
            [STEPEVAL, *command, "--lab", str(lab)], capture_output=True, text=True, env=DEGRADED, timeout=60
        )
        assert "sandbox" not in done.stderr + done.stdout, (command, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr


def test_run_says_nothing_with_the_full_sandbox(aws: MotoAccount) -> None:
    answer, stderr = run_seed_step(aws, dict(os.environ))
    assert answer["status"] == "pass", answer
    assert "sandbox mode" not in stderr


def test_serve_refuses_to_start_below_the_minimum_set(moto_server: str) -> None:
    """Under a runtime that lets no seccomp filter load (and no namespace): the filter is in the minimum set."""
    env = {**os.environ, "STEPEVAL_WEBHOOK_SECRET": SECRET}
    command = [*launcher("none", refuse_seccomp=True), sys.executable, "-c", LAUNCH, "serve"]
    command += ["--lab", str(SERVICE_LAB), "--port", "0"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, cwd="/")
    assert done.returncode == 2, done.stderr
    assert "refusing to start" in done.stderr and "--unsafe-no-sandbox" in done.stderr
    assert "missing from the minimum set: seccomp" in done.stderr and '"event":"listening"' not in done.stderr
    first = json.loads(next(line for line in done.stderr.splitlines() if line.startswith("{")))
    assert first["event"] == "sandbox" and first["mode"] == "none" and "seccomp" in first["off"], first


def one_worker_service(factory: Any, name: str, moto_server: str, *flags: str, **options: Any) -> Any:
    """`stepeval serve` on the service's test lab with one worker, on the moto server."""
    return factory(name, "--lab", str(SERVICE_LAB), "--workers", "1", "--endpoint-url", moto_server, *flags, **options)


def test_serve_starts_without_namespaces_and_names_the_mode_first(
    service_factory: Any, accounts: tuple[Sandbox, Sandbox], moto_server: str
) -> None:
    service = one_worker_service(service_factory, "no-namespaces", moto_server, env={NO_NAMESPACES_ENV: "1"})
    first = service.log_lines()[0]
    assert first["event"] == "sandbox" and first["mode"] == "none", first
    assert set(MINIMUM) <= set(first["on"]) and "pid_namespace" in first["off"]
    assert "a module sees the host's name" in first["cannot_stop"]
    sandbox = service.http.get("/healthz").json()["sandbox"]
    assert sandbox["mode"] == "none" and sandbox["full"] is False and sandbox["sufficient"] is True
    assert sandbox["pid_namespace"] is False and sandbox["seccomp"] is True
    a, _ = accounts
    answer = service.post({"step": "01.01", "sandbox": a.ref(), "events": bucket_events("alpha-bucket")}).json()
    assert answer["status"] == "pass", answer
    assert not any(line.get("event") == "unsafe_no_sandbox" for line in service.log_lines())


def test_serve_runs_below_the_minimum_set_only_when_told(
    service_factory: Any, accounts: tuple[Sandbox, Sandbox], moto_server: str
) -> None:
    below = launcher("none", refuse_seccomp=True)
    service = one_worker_service(
        service_factory, "below-minimum", moto_server, "--unsafe-no-sandbox", launcher=below, cwd="/"
    )
    sandbox = service.http.get("/healthz").json()["sandbox"]
    assert sandbox["sufficient"] is False and sandbox["seccomp"] is False and sandbox["fresh_process"] is True
    a, _ = accounts
    answer = service.post({"step": "01.01", "sandbox": a.ref(), "events": bucket_events("alpha-bucket")}).json()
    assert answer["status"] == "pass", answer
    assert any(line.get("event") == "unsafe_no_sandbox" for line in service.log_lines())
