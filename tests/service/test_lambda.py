"""The Lambda handler, called as Lambda calls it: a direct invocation, a Function URL event, an API Gateway event."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.core.lab import load_lab
from harness.core.lab_version import lab_version
from harness.service import lambda_handler
from harness.service.webhooks import sign
from tests.fixtures.modes import launcher
from tests.fixtures.service import SECRET, SERVICE_LAB, Sandbox, bucket_events, make_labs

pytestmark = pytest.mark.process  # the handler starts its own worker pool


@dataclass
class FakeContext:
    """The two attributes of Lambda's context object the handler reads."""

    aws_request_id: str
    remaining_ms: int = 30_000

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


@pytest.fixture
def lambda_env(monkeypatch: pytest.MonkeyPatch, moto_server: str) -> Iterator[None]:
    monkeypatch.setenv("STEPEVAL_LAB", str(SERVICE_LAB))
    monkeypatch.setenv("STEPEVAL_ENDPOINT_URL", moto_server)
    monkeypatch.setenv("STEPEVAL_WEBHOOK_SECRET", SECRET)
    monkeypatch.setenv("STEPEVAL_WORKERS", "1")
    lambda_handler.reset()
    yield
    lambda_handler.reset()


def request(sandbox: Sandbox) -> dict:
    return {"step": "01.01", "sandbox": sandbox.ref(), "events": bucket_events("alpha-bucket")}


def function_url_event(body: bytes, headers: dict[str, str], *, base64_body: bool = False) -> dict:
    return {
        "version": "2.0",
        "rawPath": "/v1/evaluations",
        "headers": headers,
        "requestContext": {"http": {"method": "POST", "path": "/v1/evaluations"}},
        "body": base64.b64encode(body).decode() if base64_body else body.decode(),
        "isBase64Encoded": base64_body,
    }


def test_a_direct_invocation_answers_like_the_service(lambda_env: None, accounts: tuple[Sandbox, Sandbox]) -> None:
    answer = lambda_handler.handler(request(accounts[0]), FakeContext("req-1"))
    assert answer["status"] == "pass", answer
    assert answer["request_id"] == "lambda-req-1"
    assert answer["message"] == "account 111111111111 sees buckets ['alpha-bucket']"
    replay = lambda_handler.handler(request(accounts[1]), FakeContext("req-1"))  # Lambda's retry: same id
    assert replay["error"]["code"] == "idempotency_conflict"


def test_a_direct_invocation_with_bad_input_names_the_field(
    lambda_env: None, accounts: tuple[Sandbox, Sandbox]
) -> None:
    body = request(accounts[0])
    body["sandbox"]["account_id"] = "1234"
    refused = lambda_handler.handler(body, FakeContext("req-2"))
    assert refused["error"]["status"] == 422 and refused["error"]["field"] == "sandbox.account_id"
    assert lambda_handler.handler(["not", "an", "object"], FakeContext("req-3"))["error"]["field"] == "body"


def test_a_signed_function_url_event(lambda_env: None, accounts: tuple[Sandbox, Sandbox]) -> None:
    body = json.dumps(request(accounts[0])).encode()
    headers = {**sign(SECRET, "msg_fn_url", body), "content-type": "application/json"}
    reply = lambda_handler.handler(function_url_event(body, headers), FakeContext("req-4"))
    assert reply["statusCode"] == 200
    assert reply["headers"]["content-type"] == "application/json"
    answer = json.loads(reply["body"])
    assert answer["status"] == "pass" and answer["request_id"] == "msg_fn_url"


def test_an_api_gateway_event_with_a_base64_body_and_mixed_case_headers(
    lambda_env: None, accounts: tuple[Sandbox, Sandbox]
) -> None:
    body = json.dumps(request(accounts[1])).encode()
    signed = sign(SECRET, f"msg_{uuid.uuid4().hex}", body)
    headers = {"Webhook-Id": signed["webhook-id"], "Webhook-Timestamp": signed["webhook-timestamp"]}
    headers |= {"Webhook-Signature": signed["webhook-signature"], "Content-Type": "application/json"}
    event = {"httpMethod": "POST", "path": "/v1/evaluations", "requestContext": {}, "headers": headers}
    event |= {"body": base64.b64encode(body).decode(), "isBase64Encoded": True}
    reply = lambda_handler.handler(event, FakeContext("req-5"))
    assert reply["statusCode"] == 200, reply
    assert json.loads(reply["body"])["status"] == "fail"  # account 222222222222 has no alpha-bucket


def test_an_unsigned_http_event_is_401(lambda_env: None, accounts: tuple[Sandbox, Sandbox]) -> None:
    body = json.dumps(request(accounts[0])).encode()
    reply = lambda_handler.handler(function_url_event(body, {"content-type": "application/json"}), FakeContext("r"))
    assert reply["statusCode"] == 401
    assert json.loads(reply["body"])["error"]["field"] == "webhook-id"


def test_a_mismatched_account_is_refused_in_lambda_too(lambda_env: None, accounts: tuple[Sandbox, Sandbox]) -> None:
    body = request(accounts[0])
    body["sandbox"]["account_id"] = accounts[1].account_id
    answer = lambda_handler.handler(body, FakeContext("req-6"))
    assert (answer["error"]["status"], answer["error"]["field"]) == (422, "sandbox.role_arn")


def test_a_retried_direct_invocation_gets_the_stored_answer_without_running_again(
    lambda_env: None, accounts: tuple[Sandbox, Sandbox]
) -> None:
    """Lambda retries an asynchronous invoke with the same request id: the claim loop the HTTP path runs too."""
    a, _ = accounts
    event = request(a)
    first = lambda_handler.handler(event, FakeContext("req-7"))
    assert first["status"] == "pass", first
    a.learner("s3").delete_bucket(Bucket="alpha-bucket")  # a fresh run would now fail
    assert lambda_handler.handler(event, FakeContext("req-7")) == first
    registry = lambda_handler.get_evaluator().metrics.registry
    assert registry.get_sample_value("stepeval_idempotent_replays_total") == 1
    assert lambda_handler.handler(request(a), FakeContext("req-8"))["status"] == "fail"  # a new id runs afresh


# As Lambda runs it: an unprivileged uid, no namespaces (tests/fixtures/modes.py), the role's keys in the environment.
HANDLE_ONCE = """import json, os, sys
from harness.service import lambda_handler
class Context:
    aws_request_id = "req-mode"
    def get_remaining_time_in_millis(self):
        return 30000
try:
    answer = lambda_handler.handler(json.loads(sys.argv[1]), Context())
except lambda_handler.SandboxRefused as exc:
    print(json.dumps({"refused": str(exc)}))
else:
    print(json.dumps({"answer": answer, "left": sorted(k for k in os.environ if k.startswith("AWS_SECRET"))}))
"""


def handle_as_lambda(event: dict, moto_server: str, *, refuse_seccomp: bool) -> tuple[dict, list[dict]]:
    env = {
        **os.environ,
        "STEPEVAL_LAB": str(SERVICE_LAB),
        "STEPEVAL_ENDPOINT_URL": moto_server,
        "STEPEVAL_WEBHOOK_SECRET": SECRET,
        "STEPEVAL_WORKERS": "1",
        "AWS_LAMBDA_RUNTIME_API": "127.0.0.1:9001",
    }
    command = [*launcher("none", refuse_seccomp=refuse_seccomp), sys.executable, "-c", HANDLE_ONCE, json.dumps(event)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, cwd="/")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    return json.loads(done.stdout.splitlines()[-1]), lines


def test_in_lambdas_mode_it_evaluates_and_moves_the_roles_keys_out_of_its_environment(
    accounts: tuple[Sandbox, Sandbox], moto_server: str
) -> None:
    out, lines = handle_as_lambda(request(accounts[0]), moto_server, refuse_seccomp=False)
    assert out["answer"]["status"] == "pass", out
    assert out["left"] == []  # AWS_SECRET_ACCESS_KEY was there (tests/conftest.py): now only the STS client holds it
    sandbox = next(line for line in lines if line.get("event") == "sandbox")
    assert sandbox["mode"] == "none" and "seccomp" in sandbox["on"] and "non_dumpable" in sandbox["on"], sandbox


def test_below_the_minimum_set_the_handler_refuses_to_evaluate(
    accounts: tuple[Sandbox, Sandbox], moto_server: str
) -> None:
    out, lines = handle_as_lambda(request(accounts[0]), moto_server, refuse_seccomp=True)
    assert "refusing to evaluate" in out["refused"] and "seccomp" in out["refused"], out
    assert not any(line.get("event") == "evaluation" for line in lines)


def test_many_labs_packaged_in_the_image_are_served_by_name(
    lambda_env: None, monkeypatch: pytest.MonkeyPatch, accounts: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    labs = make_labs(tmp_path / "labs")
    monkeypatch.setenv("STEPEVAL_LABS", str(labs))  # beside STEPEVAL_LAB, as an image built on ours has both
    lambda_handler.reset()
    for name in ("lab-alpha", "lab-gamma"):
        answer = lambda_handler.handler({**request(accounts[0]), "lab": name}, FakeContext(f"req-{name}"))
        assert (answer["status"], answer["lab"]) == ("pass", name), answer
        assert answer["lab_version"] == lab_version(load_lab(labs / name.removeprefix("lab-")))
    refused = lambda_handler.handler(request(accounts[0]), FakeContext("req-unnamed"))
    assert refused["error"]["status"] == 422 and refused["error"]["field"] == "lab"


def test_a_weak_secret_refuses_every_invocation_in_the_service_s_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPEVAL_LAB", str(SERVICE_LAB))
    monkeypatch.setenv("STEPEVAL_WEBHOOK_SECRET", "whsec_YWJj")  # "abc": 3 bytes
    lambda_handler.reset()
    for _ in range(2):
        with pytest.raises(lambda_handler.SettingsRefused) as refused:
            lambda_handler.handler({"step": "01.01"}, FakeContext("req-weak"))
        assert str(refused.value) == (
            "STEPEVAL_WEBHOOK_SECRET: too weak: its key is 3 bytes, Standard Webhooks secrets are 24 to 64"
            " (make one with stepeval sign --new-secret)"
        )
    lambda_handler.reset()


def test_a_get_through_a_function_url_is_405_in_the_refusal_shape(lambda_env: None) -> None:
    event = function_url_event(b"", {})
    event["requestContext"]["http"]["method"] = "GET"
    del event["body"]  # a GET through a Function URL carries none
    reply = lambda_handler.handler(event, FakeContext("req-get"))
    assert (reply["statusCode"], reply["headers"]["allow"]) == (405, "POST")
    assert json.loads(reply["body"])["error"] == {
        "status": 405,
        "code": "method_not_allowed",
        "field": None,
        "message": "GET /v1/evaluations: this path takes POST",
        "errors": [],
    }
