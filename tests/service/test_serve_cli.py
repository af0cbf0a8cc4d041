"""`stepeval serve` refuses a bad configuration with exit 2 and a line naming the variable or flag."""

from __future__ import annotations

import base64
import os
import socket
import subprocess

import pytest

from tests.conftest import STEPEVAL
from tests.fixtures.service import SECRET, SERVICE_LAB

pytestmark = pytest.mark.process


def serve(*args: str, secret: str | None = SECRET) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "STEPEVAL_WEBHOOK_SECRET"}
    if secret is not None:
        env["STEPEVAL_WEBHOOK_SECRET"] = secret
    return subprocess.run([STEPEVAL, "serve", *args], env=env, capture_output=True, text=True, timeout=60)


def test_no_secret_no_service() -> None:
    done = serve("--lab", str(SERVICE_LAB), secret=None)
    assert done.returncode == 2
    assert (
        "STEPEVAL_WEBHOOK_SECRET: is required (the secret shared with the platform: make one with stepeval sign"
        " --new-secret)" in done.stderr
    )


def test_a_secret_that_is_not_whsec_is_refused_without_echoing_it() -> None:
    done = serve("--lab", str(SERVICE_LAB), secret="hunter2-hunter2")
    assert done.returncode == 2 and "whsec_" in done.stderr and "hunter2" not in done.stderr


@pytest.mark.parametrize(
    ("secret", "said"),
    [
        ("abc", "must be whsec_ followed by base64 (make one with stepeval sign --new-secret); the value is not shown"),
        (
            "whsec_" + base64.b64encode(b"k" * 23).decode(),
            "too weak: its key is 23 bytes, Standard Webhooks secrets are 24 to 64 (make one with stepeval sign"
            " --new-secret)",
        ),
    ],
    ids=["not-whsec", "23-bytes"],
)
def test_a_bad_secret_is_one_line_naming_the_variable_once(secret: str, said: str) -> None:
    done = serve("--lab", str(SERVICE_LAB), secret=secret)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"stepeval serve: STEPEVAL_WEBHOOK_SECRET: {said}"]
    assert "python" not in done.stderr and secret.removeprefix("whsec_") not in done.stderr


def test_a_bad_flag_is_named() -> None:
    done = serve("--lab", str(SERVICE_LAB), "--workers", "0")
    assert done.returncode == 2 and "--workers" in done.stderr


def test_a_lab_that_does_not_load_is_refused_at_start() -> None:
    done = serve("--lab", "/nonexistent-lab")
    assert done.returncode == 2 and "/nonexistent-lab: no such lab directory" in done.stderr


def test_a_busy_port_is_named_in_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve("--lab", str(SERVICE_LAB), "--host", "127.0.0.1", "--port", str(port))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == (
        f"stepeval serve: cannot listen on 127.0.0.1:{port}: address already in use (another process listens there: "
        "choose another --port or STEPEVAL_PORT)"
    ), done.stderr
    assert "Traceback" not in done.stderr and "Errno" not in done.stderr
    assert all(line.startswith("{") for line in lines[:-1]), done.stderr  # before it: the JSON log, if anything
