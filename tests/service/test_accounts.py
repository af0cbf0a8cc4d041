"""Each evaluation reaches its own sandbox account and no other; a mismatched account is refused."""

from __future__ import annotations

import socket
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.fixtures.service import ACCOUNT_A, ACCOUNT_B, SERVICE_LAB, Sandbox, Service, bucket_events


def evaluate(service: Service, sandbox: Sandbox, *buckets: str, **ref: str) -> dict:
    response = service.post({"step": "01.01", "sandbox": sandbox.ref(**ref), "events": bucket_events(*buckets)})
    assert response.status_code == 200, response.text
    return response.json()


def test_each_evaluation_sees_only_its_own_account(service: Service, accounts: tuple[Sandbox, Sandbox]) -> None:
    a, b = accounts
    answer = evaluate(service, a, "beta-bucket", "alpha-bucket")
    assert answer["status"] == "pass"
    assert answer["message"] == f"account {ACCOUNT_A} sees buckets ['alpha-bucket']"
    assert answer["resolved"] == [{"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": "alpha-bucket"}]

    answer = evaluate(service, b, "alpha-bucket")
    assert answer["status"] == "fail"
    assert answer["message"] == f"account {ACCOUNT_B} sees buckets ['beta-bucket']"


def test_interleaved_evaluations_never_mix_accounts(service: Service, accounts: tuple[Sandbox, Sandbox]) -> None:
    a, b = accounts
    refs = {ACCOUNT_A: a.ref(), ACCOUNT_B: b.ref()}  # one cached credential per account, shared by the calls

    def one(index: int) -> tuple[str, dict]:
        account = ACCOUNT_A if index % 2 == 0 else ACCOUNT_B
        body = {"step": "01.01", "sandbox": refs[account], "events": bucket_events("alpha-bucket", "beta-bucket")}
        response = service.post(body)
        assert response.status_code == 200, response.text
        return account, response.json()

    with ThreadPoolExecutor(8) as threads:
        results = list(threads.map(one, range(40)))
    for account, answer in results:
        own = "alpha-bucket" if account == ACCOUNT_A else "beta-bucket"
        assert answer["status"] == "pass", answer
        assert answer["message"] == f"account {account} sees buckets [{own!r}]"
        assert answer["validated"][0]["id"] == own


def test_an_account_id_that_is_not_the_roles_is_refused(service: Service, accounts: tuple[Sandbox, Sandbox]) -> None:
    a, _ = accounts
    assumed = service.metric("stepeval_assume_role_total", outcome="assumed")
    response = service.post({"step": "01.01", "sandbox": a.ref(account_id=ACCOUNT_B), "events": []})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("invalid_field", "sandbox.role_arn")
    assert error["message"] == (
        f"sandbox.role_arn: the role is in account {ACCOUNT_A}, not in sandbox.account_id {ACCOUNT_B}"
    )
    assert service.metric("stepeval_assume_role_total", outcome="assumed") == assumed  # refused before STS


def test_the_role_is_assumed_once_per_role_and_external_id(service: Service, accounts: tuple[Sandbox, Sandbox]) -> None:
    a, _ = accounts
    ref = a.ref()
    assumed = service.metric("stepeval_assume_role_total", outcome="assumed")
    for _ in range(3):
        response = service.post({"step": "01.01", "sandbox": ref, "events": bucket_events("alpha-bucket")})
        assert response.json()["status"] == "pass"
    assert service.metric("stepeval_assume_role_total", outcome="assumed") == assumed + 1


@pytest.mark.parametrize("where", ["closed-port", "unresolvable"])
def test_an_sts_that_does_not_answer_is_named_with_its_cause(where: str, service_factory: Any) -> None:
    """AssumeRole's endpoint refusing or not resolving: the detail names host, port and cause as `stepeval run`
    says it, and the two read differently."""
    with socket.socket() as sock:  # a loopback port nobody listens on (bound, then closed)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    host = "127.0.0.1" if where == "closed-port" else "sts.stepeval-test.invalid"
    url = f"http://{host}:{port}"
    service = service_factory(f"sts-{where}", "--lab", str(SERVICE_LAB), "--workers", "1", "--endpoint-url", url)
    answer = evaluate(service, Sandbox(ACCOUNT_A, url), "alpha-bucket")
    assert answer["status"] == "error" and answer["error"]["kind"] == "service", answer  # the service's endpoint
    cause = (
        "connection refused (NewConnectionError)"
        if where == "closed-port"
        else (f"the name {host} does not resolve (NameResolutionError)")
    )
    unreachable = f"the endpoint {url} ({host}:{port}) did not answer: {cause}"
    assert answer["error"]["detail"] == (
        f"sts:AssumeRole into arn:aws:iam::{ACCOUNT_A}:role/stepeval-evaluator failed: {unreachable}; the service's"
        f" own access to AWS fails: STS at {url} cannot be reached with the service's own credentials: {unreachable}"
    ), answer["error"]
