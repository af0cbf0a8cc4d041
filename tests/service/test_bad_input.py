"""A corpus of bad requests: each gets the right 4xx with a body naming the field, never a 500; the service
answers a valid request afterwards."""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from harness.service.webhooks import sign
from tests.fixtures.service import SECRET, Sandbox, Service, bucket_events

ROLE = "arn:aws:iam::111111111111:role/stepeval-evaluator"
SANDBOX = {"account_id": "111111111111", "role_arn": ROLE, "external_id": "ext-corpus", "region": "us-east-1"}
VALID = {"step": "01.01", "sandbox": SANDBOX, "events": bucket_events("alpha-bucket")}
OTHER_SECRET = "whsec_" + base64.b64encode(b"another secret, not ours").decode()


def with_(path: str, value: Any) -> dict[str, Any]:
    """VALID with one field replaced ("sandbox.region") or removed (value DROP)."""
    body = json.loads(json.dumps(VALID))
    *parents, last = path.split(".")
    target = body
    for part in parents:
        target = target[part]
    if value is DROP:
        del target[last]
    else:
        target[last] = value
    return body


DROP = object()
VALID_BYTES = json.dumps(VALID).encode()


@dataclass
class Case:
    """One bad request: the body, how its headers differ from a correctly signed JSON request, what comes back."""

    status: int
    field: str
    body: dict[str, Any] | list | str | bytes | None = None
    headers: dict[str, str | None] = field(default_factory=dict)
    secret: str = SECRET
    timestamp_shift: float = 0

    def raw(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        return json.dumps(VALID if self.body is None else self.body).encode()


CASES: dict[str, Case] = {
    # trust at the door: 401
    "no-webhook-id": Case(401, "webhook-id", headers={"webhook-id": None}),
    "no-timestamp": Case(401, "webhook-timestamp", headers={"webhook-timestamp": None}),
    "no-signature": Case(401, "webhook-signature", headers={"webhook-signature": None}),
    "wrong-signature": Case(401, "webhook-signature", headers={"webhook-signature": "v1,bm90IHRoZSByaWdodCBvbmU="}),
    "signature-not-base64": Case(401, "webhook-signature", headers={"webhook-signature": "v1,@@@"}),
    "signature-no-version": Case(401, "webhook-signature", headers={"webhook-signature": "bm90IHRoZSByaWdodCBvbmU="}),
    "signature-v2-only": Case(401, "webhook-signature", headers={"webhook-signature": "v2,bm90IHRoZSByaWdodCBvbmU="}),
    "other-secret": Case(401, "webhook-signature", secret=OTHER_SECRET),
    "stale-timestamp": Case(401, "webhook-timestamp", timestamp_shift=-600),
    "future-timestamp": Case(401, "webhook-timestamp", timestamp_shift=+600),
    "timestamp-not-a-number": Case(401, "webhook-timestamp", headers={"webhook-timestamp": "yesterday"}),
    # issue 25: an int() of 5000 digits raised (a 500), on a body that is not UTF-8 too
    "timestamp-5000-digits": Case(401, "webhook-timestamp", headers={"webhook-timestamp": "1" * 5000}),
    "timestamp-5000-digits-not-utf8": Case(
        401, "webhook-timestamp", body=b'{"step": "\xff"}', headers={"webhook-timestamp": "1" * 5000}
    ),
    "signature-huge": Case(401, "webhook-signature", headers={"webhook-signature": " ".join(["v1,AAAA"] * 2000)}),
    "webhook-id-too-long": Case(401, "webhook-id", headers={"webhook-id": "x" * 300}),
    # size: 413
    "body-over-1-mib": Case(413, "body", body=b"{" + b" " * (1024 * 1024 + 10) + b"}"),
    # media type: 415
    "text-plain": Case(415, "content-type", headers={"content-type": "text/plain"}),
    "form-encoded": Case(415, "content-type", headers={"content-type": "application/x-www-form-urlencoded"}),
    "no-content-type": Case(415, "content-type", headers={"content-type": None}),
    # not JSON: 400
    "empty-body": Case(400, "body", body=b""),
    "truncated-json": Case(400, "body", body=b'{"step": "01.01", "sandbox": {'),
    "trailing-garbage": Case(400, "body", body=VALID_BYTES + b" garbage"),
    "single-quotes": Case(400, "body", body=b"{'step': '01.01'}"),
    "nested-too-deep": Case(400, "body", body=b"[" * 200_000 + b"]" * 200_000),
    "signed-but-not-utf8": Case(400, "body", body=b'{"step": "01.01\xff"}'),
    # what Python's parser refuses past the grammar (issue 31: a 4,301-digit integer answered 500)
    "integer-of-4301-digits": Case(400, "body", body=b'{"step": "01.01", "n": ' + b"9" * 4301 + b"}"),
    "lone-surrogate": Case(400, "body", body=b'{"step": "01.01\\ud800"}'),
    # the shape: 422
    "top-level-array": Case(422, "body", body=[VALID]),
    "top-level-string": Case(422, "body", body="01.01"),
    "top-level-null": Case(422, "body", body=b"null"),
    "unknown-top-level-field": Case(422, "learner", body={**VALID, "learner": "bob"}),
    "step-missing": Case(422, "step", body=with_("step", DROP)),
    "step-number": Case(422, "step", body=with_("step", 1.01)),
    "step-null": Case(422, "step", body=with_("step", None)),
    "step-path": Case(422, "step", body=with_("step", "../../etc/passwd")),
    "step-module-path": Case(422, "step", body=with_("step", "evaluation/boto3/01_01.py")),
    "step-slash": Case(422, "step", body=with_("step", "01/01")),
    "step-one-digit": Case(422, "step", body=with_("step", "1.1")),
    "step-with-suffix": Case(422, "step", body=with_("step", "01.01.py")),
    "step-unknown": Case(422, "step", body=with_("step", "09.09")),
    "step-huge": Case(422, "step", body=with_("step", "9" * 100_000)),
    "sandbox-missing": Case(422, "sandbox", body=with_("sandbox", DROP)),
    "sandbox-string": Case(422, "sandbox", body=with_("sandbox", "111111111111")),
    "sandbox-unknown-field": Case(422, "sandbox.profile", body=with_("sandbox.profile", "default")),
    "account-missing": Case(422, "sandbox.account_id", body=with_("sandbox.account_id", DROP)),
    "account-11-digits": Case(422, "sandbox.account_id", body=with_("sandbox.account_id", "11111111111")),
    "account-13-digits": Case(422, "sandbox.account_id", body=with_("sandbox.account_id", "1111111111111")),
    "account-letters": Case(422, "sandbox.account_id", body=with_("sandbox.account_id", "11111111111a")),
    "account-number": Case(422, "sandbox.account_id", body=with_("sandbox.account_id", 111111111111)),
    "account-with-dashes": Case(422, "sandbox.account_id", body=with_("sandbox.account_id", "1111-1111-1111")),
    "account-trailing-newline": Case(422, "sandbox.account_id", body=with_("sandbox.account_id", "111111111111\n")),
    "account-full-width": Case(422, "sandbox.account_id", body=with_("sandbox.account_id", "\uff11" * 12)),
    "role-missing": Case(422, "sandbox.role_arn", body=with_("sandbox.role_arn", DROP)),
    "role-is-a-user": Case(422, "sandbox.role_arn", body=with_("sandbox.role_arn", "arn:aws:iam::111111111111:user/x")),
    "role-is-s3": Case(422, "sandbox.role_arn", body=with_("sandbox.role_arn", "arn:aws:s3:::bucket")),
    "role-not-an-arn": Case(422, "sandbox.role_arn", body=with_("sandbox.role_arn", "stepeval-evaluator")),
    "role-short-account": Case(422, "sandbox.role_arn", body=with_("sandbox.role_arn", "arn:aws:iam::1111:role/x")),
    "role-no-name": Case(422, "sandbox.role_arn", body=with_("sandbox.role_arn", "arn:aws:iam::111111111111:role/")),
    "role-trailing-newline": Case(422, "sandbox.role_arn", body=with_("sandbox.role_arn", ROLE + "\n")),
    "role-full-width-account": Case(
        422, "sandbox.role_arn", body=with_("sandbox.role_arn", ROLE.replace("111111111111", "\uff11" * 12))
    ),
    "role-non-ascii-name": Case(422, "sandbox.role_arn", body=with_("sandbox.role_arn", ROLE + "\u00e9")),
    "role-of-another-account": Case(
        422, "sandbox.role_arn", body=with_("sandbox.role_arn", ROLE.replace("111111111111", "222222222222"))
    ),
    "external-id-trailing-newline": Case(422, "sandbox.external_id", body=with_("sandbox.external_id", "ext-1\n")),
    "region-trailing-newline": Case(422, "sandbox.region", body=with_("sandbox.region", "us-east-1\n")),
    "external-id-missing": Case(422, "sandbox.external_id", body=with_("sandbox.external_id", DROP)),
    "external-id-one-char": Case(422, "sandbox.external_id", body=with_("sandbox.external_id", "x")),
    "external-id-spaces": Case(422, "sandbox.external_id", body=with_("sandbox.external_id", "ext id")),
    "region-missing": Case(422, "sandbox.region", body=with_("sandbox.region", DROP)),
    "region-made-up": Case(422, "sandbox.region", body=with_("sandbox.region", "mars")),
    "region-upper-case": Case(422, "sandbox.region", body=with_("sandbox.region", "US-EAST-1")),
    "region-in-no-list": Case(422, "sandbox.region", body=with_("sandbox.region", "us-east-9")),
    "region-of-another-partition": Case(422, "sandbox.region", body=with_("sandbox.region", "cn-north-1")),
    "events-object": Case(422, "events", body=with_("events", {"type": "AWS::S3::Bucket", "id": "b"})),
    "event-a-string": Case(422, "events[0]", body=with_("events", ["alpha-bucket"])),
    "event-no-id": Case(422, "events[0].id", body=with_("events", [{"type": "AWS::S3::Bucket"}])),
    "event-no-type": Case(422, "events[0].type", body=with_("events", [{"id": "b"}])),
    "event-empty-id": Case(422, "events[0].id", body=with_("events", [{"type": "AWS::S3::Bucket", "id": ""}])),
    "event-bad-type": Case(
        422, "events[1].type", body=with_("events", [*bucket_events("b"), {"type": "S3", "id": "b"}])
    ),
    "event-extra-key": Case(
        422, "events[0].name", body=with_("events", [{"type": "AWS::S3::Bucket", "id": "b", "name": "x"}])
    ),
    "too-many-events": Case(422, "events", body=with_("events", bucket_events(*["b"] * 1001))),
    "resolved-object": Case(422, "resolved", body=with_("resolved", {})),
    "resolved-no-name": Case(422, "resolved[0].name", body=with_("resolved", [{"type": "AWS::S3::Bucket", "id": "b"}])),
    "resolved-unknown-handle": Case(
        422, "resolved[0].name", body=with_("resolved", [{"name": "09_09_x", "type": "AWS::S3::Bucket", "id": "b"}])
    ),
    "resolved-wrong-type": Case(
        422, "resolved[0].type", body=with_("resolved", [{"name": "01_01_bucket", "type": "AWS::EC2::VPC", "id": "v"}])
    ),
}


def send(service: Service, case: Case):
    raw = case.raw()
    headers: dict[str, str | None] = {
        **sign(case.secret, "msg_corpus", raw, time.time() + case.timestamp_shift),
        "content-type": "application/json",
        **case.headers,
    }
    sent = {k: v for k, v in headers.items() if v is not None}
    return service.http.post("/v1/evaluations", content=raw, headers=sent)


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 50


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_gets_a_clear_4xx(service: Service, name: str) -> None:
    case = CASES[name]
    response = send(service, case)
    assert response.status_code == case.status, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert error["status"] == case.status
    assert error["field"] == case.field, error
    assert case.field in error["message"], error
    assert len(response.content) < 8192, "a refusal never echoes a large input back"


def test_every_field_error_is_listed(service: Service) -> None:
    body = with_("sandbox", {"account_id": "1", "role_arn": "x", "external_id": "ext-1", "region": "us-east-1"})
    error = send(service, Case(422, "sandbox.account_id", body=body)).json()["error"]
    assert [e["field"] for e in error["errors"]] == ["sandbox.account_id", "sandbox.role_arn"]


def test_refusals_are_in_our_own_words(service: Service) -> None:
    """A region no partition of botocore lists for the role's, and too many events: said as we say things."""
    region = send(service, Case(422, "sandbox.region", body=with_("sandbox.region", "us-east-9"))).json()["error"]
    assert (
        region["message"] == "sandbox.region: us-east-9 is not a region of the aws partition (did you mean us-east-2?)"
    )
    events = with_("events", bucket_events(*["b"] * 2000))
    flood = send(service, Case(422, "events", body=events)).json()["error"]
    assert flood["message"] == "events: at most 1000 items are accepted, got 2000"


def test_unknown_routes_and_methods_are_refused_in_the_refusal_shape(service: Service) -> None:
    wrong_method = service.http.get("/v1/evaluations")
    assert wrong_method.status_code == 405 and wrong_method.headers["allow"] == "POST"
    assert wrong_method.json() == {
        "error": {
            "status": 405,
            "code": "method_not_allowed",
            "field": None,
            "message": "GET /v1/evaluations: this path takes POST",
            "errors": [],
        },
        "request_id": None,
    }
    nowhere = service.http.post("/v1/nothing-here", content=b"{}")
    assert nowhere.status_code == 404
    assert nowhere.json()["error"] == {
        "status": 404,
        "code": "not_found",
        "field": None,
        "message": "POST /v1/nothing-here: no such path (docs/service.md lists the paths)",
        "errors": [],
    }


def test_a_role_of_another_account_is_refused_before_sts(service: Service) -> None:
    assumed = service.metric("stepeval_assume_role_total", outcome="assumed")
    role = ROLE.replace("111111111111", "222222222222")
    error = send(service, Case(422, "sandbox.role_arn", body=with_("sandbox.role_arn", role))).json()["error"]
    assert error["message"] == (
        "sandbox.role_arn: the role is in account 222222222222, not in sandbox.account_id 111111111111"
    )
    assert service.metric("stepeval_assume_role_total", outcome="assumed") == assumed


def test_the_service_still_answers_after_the_corpus(service: Service, accounts: tuple[Sandbox, Sandbox]) -> None:
    a, _ = accounts
    response = service.post({"step": "01.01", "sandbox": a.ref(), "events": bucket_events("alpha-bucket")})
    assert response.status_code == 200 and response.json()["status"] == "pass"
    assert service.metric("stepeval_rejections_total", code="500") == 0
    assert service.metric("stepeval_rejections_total", code="422") >= 40
