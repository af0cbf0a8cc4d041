"""The HTTP surface: idempotency by webhook-id, health, readiness, metrics, logs and the OpenAPI schema."""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor

from harness.core.lab import load_lab
from harness.core.lab_version import lab_version
from harness.service.models import EXAMPLE_REQUEST
from tests.conftest import ANSWER_KEYS
from tests.fixtures.service import SECRET, SERVICE_LAB, Sandbox, Service, bucket_events

SERVICE_ANSWER_KEYS = ANSWER_KEYS | {"lab", "lab_version", "request_id"}


def body_for(sandbox: Sandbox, *buckets: str) -> dict:
    return {"step": "01.01", "sandbox": sandbox.ref(), "events": bucket_events(*buckets)}


def test_the_answer_is_the_run_answer_plus_the_lab_version_and_the_request_id(
    service: Service, accounts: tuple[Sandbox, Sandbox]
) -> None:
    response = service.post(body_for(accounts[0], "alpha-bucket"), msg_id="msg_shape")
    assert response.status_code == 200
    answer = response.json()
    assert set(answer) == SERVICE_ANSWER_KEYS
    assert answer["request_id"] == "msg_shape"
    assert answer["step"] == "01.01" and answer["duration_ms"] > 0
    assert answer["lab"] == "service-tests" and answer["lab_version"] == lab_version(load_lab(SERVICE_LAB))


def test_the_same_webhook_id_gets_the_stored_answer_without_running_again(
    service: Service, accounts: tuple[Sandbox, Sandbox]
) -> None:
    a, _ = accounts
    body = body_for(a, "alpha-bucket")
    msg_id = f"msg_{uuid.uuid4().hex}"
    first = service.post(body, msg_id=msg_id)
    runs = service.metric("stepeval_answers_total", status="pass", kind="none")
    replays = service.metric("stepeval_idempotent_replays_total")
    a.learner("s3").delete_bucket(Bucket="alpha-bucket")  # a fresh run would now fail
    again = service.post(body, msg_id=msg_id)  # re-signed with a new timestamp, as a platform retry is
    assert again.status_code == 200
    assert again.json() == first.json()
    assert service.metric("stepeval_answers_total", status="pass", kind="none") == runs
    assert service.metric("stepeval_idempotent_replays_total") == replays + 1
    assert service.post(body).json()["status"] == "fail"  # a new id runs afresh


def test_concurrent_duplicates_run_once(service: Service, accounts: tuple[Sandbox, Sandbox]) -> None:
    body = body_for(accounts[0], "alpha-bucket")
    msg_id = f"msg_{uuid.uuid4().hex}"
    runs = service.metric("stepeval_answers_total", status="pass", kind="none")
    with ThreadPoolExecutor(6) as threads:
        answers = [r.json() for r in threads.map(lambda _: service.post(body, msg_id=msg_id), range(6))]
    assert all(answer == answers[0] for answer in answers)
    assert service.metric("stepeval_answers_total", status="pass", kind="none") == runs + 1


def test_a_reused_webhook_id_with_another_body_is_a_conflict(
    service: Service, accounts: tuple[Sandbox, Sandbox]
) -> None:
    a, _ = accounts
    msg_id = f"msg_{uuid.uuid4().hex}"
    assert service.post(body_for(a, "alpha-bucket"), msg_id=msg_id).status_code == 200
    conflict = service.post(body_for(a, "other-bucket"), msg_id=msg_id)
    assert conflict.status_code == 409
    assert conflict.json()["error"]["field"] == "webhook-id"


def test_a_refused_request_is_not_remembered(service: Service, accounts: tuple[Sandbox, Sandbox]) -> None:
    msg_id = f"msg_{uuid.uuid4().hex}"
    bad = {**body_for(accounts[0], "alpha-bucket"), "step": "09.09"}
    assert service.post(bad, msg_id=msg_id).status_code == 422
    assert service.post(body_for(accounts[0], "alpha-bucket"), msg_id=msg_id).status_code == 200


def test_health_and_readiness(service: Service) -> None:
    health = service.http.get("/healthz").json()
    assert health["status"] == "ok"
    assert health["sandbox"]["pid_namespace"] and health["sandbox"]["own_uid"]
    ready = service.http.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["status"] == "ready" and ready.json()["lab"] == "service-tests"
    body = ready.json()
    assert body["workers"] == 2 and body["module_problems"] == []
    assert (body["queue_limit"], body["admission_limit"], body["sized_by"]) == (64, 66, "set")  # --queue 64
    assert body["in_flight"] == body["running"] + body["waiting"]


def test_by_default_the_capacity_is_sized_by_the_machine(service_factory) -> None:
    sized = service_factory("sized", "--lab", str(SERVICE_LAB), "--endpoint-url", "http://127.0.0.1:9")
    body = sized.http.get("/readyz").json()
    assert body["sized_by"] in ("cpu", "memory") and body["workers"] >= 4  # never the old fixed 4 on a real machine
    assert body["queue_limit"] == body["workers"] and body["admission_limit"] == 2 * body["workers"]
    assert sized.metric("stepeval_workers") == body["workers"]


def test_metrics_are_prometheus_text(service: Service, accounts: tuple[Sandbox, Sandbox]) -> None:
    service.post(body_for(accounts[0], "alpha-bucket"))
    response = service.http.get("/metrics")
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    for name in (
        'stepeval_answers_total{kind="none",lab="service-tests",status="pass"}',
        'stepeval_answers_total{kind="sandbox",lab="service-tests",status="error"}',
        "stepeval_timeouts_total",
        "stepeval_worker_restarts_total",
        "stepeval_rejections_total",
        "stepeval_evaluation_seconds_bucket",
        "stepeval_in_flight",
    ):
        assert name in text, name
    assert service.metric("stepeval_answers_total", status="pass", kind="none") >= 1


def test_one_log_line_per_evaluation_and_no_secrets(service: Service, accounts: tuple[Sandbox, Sandbox]) -> None:
    msg_id = f"msg_{uuid.uuid4().hex}"
    response = service.post(body_for(accounts[0], "alpha-bucket"), msg_id=msg_id)
    assert response.status_code == 200
    lines = [line for line in service.log_lines() if line.get("request_id") == msg_id]
    assert len(lines) == 1
    assert set(lines[0]) == {
        "ts",
        "event",
        "request_id",
        "lab",
        "lab_version",
        "step",
        "account_id",
        "status",
        "error_kind",
        "duration_ms",
        "replayed",
    }
    assert lines[0]["account_id"] == "111111111111" and lines[0]["status"] == "pass"
    assert lines[0]["lab"] == "service-tests" and lines[0]["lab_version"] == response.json()["lab_version"]
    text = service.log_path.read_text()
    assert SECRET not in text and SECRET.removeprefix("whsec_") not in text
    assert "v1," not in text and "SessionToken" not in text and "SecretAccessKey" not in text
    assert "ext-" not in text  # not even the external id


def test_openapi_has_the_request_and_answers_with_examples(service: Service) -> None:
    schema = service.http.get("/openapi.json").json()
    operation = schema["paths"]["/v1/evaluations"]["post"]
    content = operation["requestBody"]["content"]["application/json"]
    assert content["schema"] == {"$ref": "#/components/schemas/EvaluationRequest"}
    assert content["examples"]["first step"]["value"] == EXAMPLE_REQUEST
    assert {p["name"] for p in operation["parameters"]} == {"webhook-id", "webhook-timestamp", "webhook-signature"}
    assert {"200", "400", "401", "409", "413", "415", "422", "429", "503"} <= set(operation["responses"])
    components = schema["components"]["schemas"]
    assert {"EvaluationRequest", "AccountRef", "EvaluationAnswer", "ProblemBody"} <= set(components)
    assert json.dumps(components["AccountRef"]).count("account_id") >= 1
    assert {"lab", "lab_version"} <= set(components["EvaluationRequest"]["properties"])
    assert {"lab", "lab_version"} <= set(components["EvaluationAnswer"]["required"])
    reload = schema["paths"]["/v1/admin/reload"]["post"]
    assert {p["name"] for p in reload["parameters"]} == {"webhook-id", "webhook-timestamp", "webhook-signature"}


def test_a_request_signed_by_hand_as_the_docs_show_is_accepted(
    service: Service, accounts: tuple[Sandbox, Sandbox]
) -> None:
    import base64
    import hashlib
    import hmac
    import time

    body = json.dumps(body_for(accounts[0], "alpha-bucket")).encode()
    msg_id, timestamp = f"msg_{uuid.uuid4().hex}", str(int(time.time()))
    key = base64.b64decode(SECRET.removeprefix("whsec_"))
    signature = base64.b64encode(hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest())
    headers = {"content-type": "application/json", "webhook-id": msg_id, "webhook-timestamp": timestamp}
    response = service.http.post(
        "/v1/evaluations", content=body, headers={**headers, "webhook-signature": "v1," + signature.decode()}
    )
    assert response.status_code == 200 and response.json()["status"] == "pass"
