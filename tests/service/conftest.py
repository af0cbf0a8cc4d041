"""The service as a real process (`stepeval serve`) on loopback, a signing client, and two sandbox accounts.

Each service runs with the network guard loaded (in the service process and, through the preload variable
conftest sets, in every worker), so nothing it does can leave loopback unnoticed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest

from harness.service.webhooks import sign
from tests.conftest import LABS, REGION

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SERVICE_LAB = Path(__file__).parent / "lab"
ACCOUNT_A, ACCOUNT_B = "111111111111", "222222222222"
START_TIMEOUT_S = 60
LAUNCH = "import sys, harness.netguard; from harness.cli import main; sys.exit(main(sys.argv[1:]))"


class Service:
    """One `stepeval serve` process; `post` signs like the platform does."""

    def __init__(
        self, tmp: Path, name: str, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> None:
        self.log_path = tmp / f"{name}.log"
        self._log = self.log_path.open("wb")
        env = {**os.environ, "STEPEVAL_WEBHOOK_SECRET": SECRET, **(env or {})}
        command = [sys.executable, "-c", LAUNCH, "serve", "--host", "127.0.0.1", "--port", "0", *args]
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        self.url = self._wait_listening()
        self.http = httpx.Client(base_url=self.url, timeout=60, limits=httpx.Limits(max_connections=100))
        self._wait_ready()

    def _wait_listening(self) -> str:
        ends = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < ends:
            for line in self.log_path.read_text(errors="replace").splitlines():
                if '"event":"listening"' in line:
                    return json.loads(line)["url"]
            if self.process.poll() is not None:
                raise RuntimeError(f"stepeval serve exited: {self.log_path.read_text()}")
            time.sleep(0.05)
        raise RuntimeError(f"stepeval serve did not listen: {self.log_path.read_text()}")

    def _wait_ready(self) -> None:
        ends = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < ends:
            if self.http.get("/readyz").status_code == 200:
                return
            time.sleep(0.05)
        raise RuntimeError(f"stepeval serve did not get ready: {self.log_path.read_text()}")

    def post(
        self,
        body: dict[str, Any] | bytes,
        *,
        msg_id: str | None = None,
        headers: dict[str, str] | None = None,
        client: httpx.Client | None = None,
    ) -> httpx.Response:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        signed = {**sign(SECRET, msg_id or f"msg_{uuid.uuid4().hex}", raw), "content-type": "application/json"}
        return (client or self.http).post("/v1/evaluations", content=raw, headers={**signed, **(headers or {})})

    def metric(self, name: str, **labels: str) -> float:
        """One sample's value from /metrics (0 when absent)."""
        wanted = name + ("{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}" if labels else "")
        for line in self.http.get("/metrics").text.splitlines():
            if line.startswith("#"):
                continue
            key, _, value = line.rpartition(" ")
            if key == wanted:
                return float(value)
        return 0.0

    def log_lines(self) -> list[dict[str, Any]]:
        lines = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            if line.startswith("{"):
                lines.append(json.loads(line))
        return lines

    def stop(self) -> None:
        self.http.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()
        text = self.log_path.read_text(errors="replace")
        assert "netguard: refused" not in text, text
        assert "Traceback" not in text, text


@pytest.fixture(scope="session")
def service_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    started: list[Service] = []

    def start(name: str, *args: str, **options: Any) -> Service:
        service = Service(tmp_path_factory.mktemp("service"), name, *args, **options)
        started.append(service)
        return service

    yield start
    for service in started:
        service.stop()


@pytest.fixture(scope="session")
def service(service_factory: Any, moto_server: str) -> Service:
    """The service on the test lab: 2 workers, room for 64 queued requests."""
    return service_factory(
        "main", "--lab", str(SERVICE_LAB), "--workers", "2", "--queue", "64", "--endpoint-url", moto_server
    )


@pytest.fixture(scope="session")
def misbehaving_service(service_factory: Any, moto_server: str) -> Service:
    """The service on the misbehaving lab: 3 workers."""
    lab = str(LABS / "misbehaving")
    return service_factory(
        "misbehaving", "--lab", lab, "--workers", "3", "--queue", "64", "--endpoint-url", moto_server
    )


@dataclass(frozen=True)
class Sandbox:
    """A sandbox account in the moto server, seen as the platform names it and as the learner uses it."""

    account_id: str
    endpoint_url: str

    def ref(self, *, account_id: str | None = None, external_id: str | None = None) -> dict[str, str]:
        """A fresh external id each time: the service's credential cache never outlives a moto reset."""
        return {
            "account_id": account_id or self.account_id,
            "role_arn": f"arn:aws:iam::{self.account_id}:role/stepeval-evaluator",
            "external_id": external_id or f"ext-{uuid.uuid4().hex}",
            "region": REGION,
        }

    def learner(self, service: str) -> Any:
        """A client acting inside this account (moto maps assumed-role credentials to the role's account)."""
        sts = boto3.client("sts", endpoint_url=self.endpoint_url, region_name=REGION)
        role = f"arn:aws:iam::{self.account_id}:role/learner"
        creds = sts.assume_role(RoleArn=role, RoleSessionName="learner")["Credentials"]
        return boto3.client(
            service,
            endpoint_url=self.endpoint_url,
            region_name=REGION,
            aws_access_key_id=creds["AccessKeyId"],
            aws_secret_access_key=creds["SecretAccessKey"],
            aws_session_token=creds["SessionToken"],
        )


@pytest.fixture
def accounts(moto_url: str) -> tuple[Sandbox, Sandbox]:
    """Two sandbox accounts, freshly reset: alpha-bucket in 111111111111, beta-bucket in 222222222222."""
    a, b = Sandbox(ACCOUNT_A, moto_url), Sandbox(ACCOUNT_B, moto_url)
    a.learner("s3").create_bucket(Bucket="alpha-bucket")
    b.learner("s3").create_bucket(Bucket="beta-bucket")
    return a, b


def bucket_events(*names: str) -> list[dict[str, str]]:
    return [{"type": "AWS::S3::Bucket", "id": name} for name in names]
