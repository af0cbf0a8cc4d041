"""`stepeval sign`: the headers for a body file, verified by the service's own verifier; bad input in one line."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from harness.service.webhooks import WebhookVerifier
from tests.conftest import STEPEVAL

pytestmark = pytest.mark.process

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def sign(*args: str, secret: str | None = SECRET, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "STEPEVAL_WEBHOOK_SECRET"}
    env |= {"STEPEVAL_WEBHOOK_SECRET": secret} if secret is not None else {}
    return subprocess.run([STEPEVAL, "sign", *args], cwd=cwd, env=env, input=stdin, capture_output=True, text=True)


def test_the_headers_verify_against_the_exact_bytes(tmp_path: Path) -> None:
    body = b'{"step": "01.01",\n "events": []}\n'
    (tmp_path / "request.json").write_bytes(body)
    done = sign("request.json", "--id", "msg_retry_7", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    headers = dict(line.split(": ", 1) for line in done.stdout.splitlines())
    assert list(headers) == ["webhook-id", "webhook-timestamp", "webhook-signature"]
    assert WebhookVerifier(SECRET).verify(body, headers) == "msg_retry_7"
    piped = sign("-", cwd=tmp_path, stdin=body.decode())
    assert WebhookVerifier(SECRET).verify(body, dict(line.split(": ", 1) for line in piped.stdout.splitlines()))


def test_a_new_secret_is_one_the_service_accepts(tmp_path: Path) -> None:
    made = sign("--new-secret", secret=None, cwd=tmp_path).stdout.strip()
    assert made.startswith("whsec_") and len(made) == 50
    (tmp_path / "b.json").write_text("{}")
    assert sign("b.json", secret=made, cwd=tmp_path).returncode == 0


def test_bad_input_is_one_line_and_never_shows_the_secret(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text("{}")
    (tmp_path / "bad.json").write_text("{")
    cases = [
        (
            ("b.json",),
            None,
            "stepeval: STEPEVAL_WEBHOOK_SECRET: is required (the secret shared with the service: make"
            " one with stepeval sign --new-secret)",
        ),
        (
            ("b.json",),
            "hunter2-not-base64",
            "stepeval: STEPEVAL_WEBHOOK_SECRET: must be whsec_ followed by base64 (make one with"
            " stepeval sign --new-secret); the value is not shown",
        ),
        (
            ("b.json",),
            "whsec_YWJj",
            "stepeval: STEPEVAL_WEBHOOK_SECRET: too weak: its key is 3 bytes, Standard Webhooks secrets are 24 to 64"
            " (make one with stepeval sign --new-secret)",
        ),
        (("missing.json",), SECRET, "stepeval: missing.json: cannot read: No such file or directory"),
        (
            ("bad.json",),
            SECRET,
            "stepeval: bad.json: is not valid JSON: Expecting property name enclosed in double"
            " quotes: line 1 column 2 (char 1)",
        ),
        ((), SECRET, "stepeval: sign: name the body file (or - for stdin), or --new-secret"),
    ]
    for args, secret, said in cases:
        done = sign(*args, secret=secret, cwd=tmp_path)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", said + "\n"), args
        assert "hunter2" not in done.stderr


def test_an_empty_body_is_signed(tmp_path: Path) -> None:
    """The admin reload takes an empty body: signing one is no error (curl would send no headers at all)."""
    (tmp_path / "empty.json").write_bytes(b"")
    done = sign("empty.json", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    headers = dict(line.split(": ", 1) for line in done.stdout.splitlines())
    assert WebhookVerifier(SECRET).verify(b"", headers).startswith("msg_")
