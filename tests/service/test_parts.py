"""The service's parts on their own: settings, signatures, the idempotency store, sandbox access."""

from __future__ import annotations

import re
import time

import pytest
from pydantic import ValidationError

from harness.service.assume import DURATION_S, AccountAccess, AccountRefused
from harness.service.models import AccountRef
from harness.service.problems import Problem
from harness.service.settings import DEFAULT_SESSION_POLICY_ARNS, ServiceSettings
from harness.service.webhooks import WebhookVerifier, sign
from harness.store.idempotency import Abandoned, IdempotencyStore
from tests.fixtures.service import ACCOUNT_A, SECRET, Sandbox


def settings(**overrides: object) -> ServiceSettings:
    return ServiceSettings(webhook_secret=SECRET, **overrides)


# -- settings ---------------------------------------------------------------------------------------------------


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEPEVAL_WEBHOOK_SECRET", SECRET)
    monkeypatch.setenv("STEPEVAL_WORKERS", "7")
    monkeypatch.setenv("STEPEVAL_SESSION_POLICY_ARNS", "arn:aws:iam::aws:policy/ReadOnlyAccess, ")
    loaded = ServiceSettings()
    assert loaded.workers == 7
    assert loaded.session_policy_arns == ("arn:aws:iam::aws:policy/ReadOnlyAccess",)
    assert ServiceSettings(workers=3).workers == 3  # a flag beats the environment


def test_the_default_session_policies_are_read_only_managed_policies() -> None:
    assert settings().session_policy_arns == DEFAULT_SESSION_POLICY_ARNS
    assert all(":iam::aws:policy/" in arn for arn in DEFAULT_SESSION_POLICY_ARNS)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("webhook_secret", "not-a-whsec"),
        ("webhook_secret", "whsec_"),
        ("session_policy_arns", "arn:aws:s3:::bucket"),
        ("endpoint_url", "127.0.0.1:5000"),
        ("workers", 0),
    ],
)
def test_bad_settings_are_refused(field: str, value: object) -> None:
    values = {"webhook_secret": SECRET, field: value}
    with pytest.raises(ValidationError) as raised:
        ServiceSettings(**values)
    assert raised.value.errors()[0]["loc"] == (field,)


def test_a_missing_secret_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STEPEVAL_WEBHOOK_SECRET", raising=False)
    with pytest.raises(ValidationError):
        ServiceSettings()


# -- signatures ---------------------------------------------------------------------------------------------------


def test_a_signed_request_verifies_and_yields_its_id() -> None:
    body = b'{"step": "01.01"}'
    assert WebhookVerifier(SECRET).verify(body, sign(SECRET, "msg_1", body)) == "msg_1"


@pytest.mark.parametrize("shift", [-301, 301])
def test_outside_five_minutes_is_refused(shift: int) -> None:
    body = b"{}"
    with pytest.raises(Problem) as raised:
        WebhookVerifier(SECRET).verify(body, sign(SECRET, "msg_1", body, time.time() + shift))
    assert raised.value.status == 401 and raised.value.field == "webhook-timestamp"


@pytest.mark.parametrize("stamp", ["\u00b2\u00b3", "\u0661" * 10, "1" * 5000, "+1767225600", " 1767225600"])
@pytest.mark.parametrize("body", [b"{}", b"\xff"])
def test_a_timestamp_that_is_not_ascii_seconds_is_a_401(stamp: str, body: bytes) -> None:
    """issue 25: str.isdigit() let these through to int(), which raised (an unsigned HTTP 500)."""
    headers = {**sign(SECRET, "msg_1", body), "webhook-timestamp": stamp}
    with pytest.raises(Problem) as raised:
        WebhookVerifier(SECRET).verify(body, headers)
    assert raised.value.status == 401 and raised.value.field == "webhook-timestamp"


def test_a_tampered_body_is_refused() -> None:
    headers = sign(SECRET, "msg_1", b'{"step": "01.01"}')
    with pytest.raises(Problem) as raised:
        WebhookVerifier(SECRET).verify(b'{"step": "01.02"}', headers)
    assert raised.value.status == 401 and raised.value.field == "webhook-signature"


def test_one_of_several_signatures_may_match() -> None:
    body = b"{}"
    headers = sign(SECRET, "msg_1", body)
    headers["webhook-signature"] = "v1,b2xkIHNlY3JldA== " + headers["webhook-signature"]  # during secret rotation
    assert WebhookVerifier(SECRET).verify(body, headers) == "msg_1"


# -- idempotency ------------------------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_completed_answer_is_kept_for_the_window() -> None:
    clock = Clock()
    store = IdempotencyStore(60, 100, clock)
    assert store.claim("id", "fp").owner
    store.complete("id", {"status": "pass"})
    again = store.claim("id", "fp")
    assert not again.owner and again.future.result() == {"status": "pass"}
    assert store.claim("id", "other").conflict
    clock.now += 61
    assert store.claim("id", "fp").owner


def test_the_oldest_answers_go_first_beyond_the_limit() -> None:
    store = IdempotencyStore(60, 2, Clock())
    for key in ("a", "b", "c"):
        store.claim(key, "fp")
        store.complete(key, {"key": key})
    assert store.claim("a", "fp").owner  # evicted
    assert not store.claim("c", "fp").owner


def test_answers_are_bounded_in_bytes_not_only_in_number() -> None:
    """issue 25: twelve 12 MiB answers stayed for a day. The oldest go while the kept ones exceed `max_bytes`; an
    answer over `max_answer_bytes` reaches its waiting duplicates and is not kept."""
    store = IdempotencyStore(3600, 10_000, Clock(), max_bytes=3000, max_answer_bytes=1500)
    for key in "abcdef":
        store.claim(key, "fp")
        store.complete(key, {"message": key * 900})
        assert store.kept_bytes <= 3000
    assert [store.claim(key, "fp").owner for key in "abcdef"] == [True] * 3 + [False] * 3  # ~915 bytes each
    store.claim("big", "fp")
    waiting = store.claim("big", "fp")
    store.complete("big", {"message": "x" * 2000})
    assert waiting.future.result(timeout=1) == {"message": "x" * 2000}
    assert store.claim("big", "fp").owner  # not kept: a later duplicate runs again
    assert store.kept_bytes <= 3000


def test_an_abandoned_claim_frees_the_key_and_tells_the_waiters() -> None:
    store = IdempotencyStore(60, 10)
    store.claim("id", "fp")
    waiting = store.claim("id", "fp")
    store.abandon("id")
    with pytest.raises(Abandoned):
        waiting.future.result(timeout=1)
    assert store.claim("id", "fp").owner


# -- sandbox access ---------------------------------------------------------------------------------------------


def ref_for(sandbox: Sandbox, external_id: str = "ext-parts") -> AccountRef:
    return AccountRef.model_validate(sandbox.ref(external_id=external_id))


def test_assume_role_is_asked_for_900_s_with_the_external_id_and_session_policies(
    accounts: tuple[Sandbox, Sandbox],
) -> None:
    a, _ = accounts
    access = AccountAccess(settings(endpoint_url=a.endpoint_url))
    seen: list[dict] = []
    sts = access.clients.get("sts", "us-east-1")
    sts.meta.events.register("provide-client-params.sts.AssumeRole", lambda params, **_: seen.append(dict(params)))
    spec = access.open(ref_for(a, "ext-one"))
    access.open(ref_for(a, "ext-two"))
    assert spec.endpoint_url == a.endpoint_url and spec.region == "us-east-1" and spec.credentials.token
    assert [p["ExternalId"] for p in seen] == ["ext-one", "ext-two"]
    assert all(p["DurationSeconds"] == DURATION_S == 900 for p in seen)
    assert all(p["PolicyArns"] == [{"arn": arn} for arn in DEFAULT_SESSION_POLICY_ARNS] for p in seen)
    names = [p["RoleSessionName"] for p in seen]
    assert len(set(names)) == 2 and all(re.fullmatch(r"stepeval-[0-9a-f]{32}", n) for n in names)


def test_credentials_are_reused_until_shortly_before_they_expire(accounts: tuple[Sandbox, Sandbox]) -> None:
    a, _ = accounts
    clock = Clock()
    clock.now = time.time()
    outcomes: list[str] = []
    access = AccountAccess(settings(endpoint_url=a.endpoint_url), clock=clock, on_assume=outcomes.append)
    first = access.open(ref_for(a))
    assert access.open(ref_for(a)) == first
    clock.now += DURATION_S - access.margin_s + 1  # within the margin: assume again
    assert access.open(ref_for(a)) != first
    assert outcomes == ["assumed", "cached", "assumed"]


def test_cached_credentials_are_opened_without_sts_and_stale_ones_not_at_all(accounts: tuple[Sandbox, Sandbox]) -> None:
    a, _ = accounts
    clock = Clock()
    clock.now = time.time()
    outcomes: list[str] = []
    access = AccountAccess(settings(endpoint_url=a.endpoint_url), clock=clock, on_assume=outcomes.append)
    assert access.open_cached(ref_for(a)) is None  # nothing cached: the caller must call open() (STS) off the loop
    opened = access.open(ref_for(a))
    assert access.open_cached(ref_for(a)) == opened
    assert access.open_cached(ref_for(a, "another-external-id")) is None
    clock.now += DURATION_S - access.margin_s + 1
    assert access.open_cached(ref_for(a)) is None
    assert outcomes == ["assumed", "cached"]


def test_an_unreachable_sts_refuses_the_sandbox(moto_url: str) -> None:
    access = AccountAccess(settings(endpoint_url="http://127.0.0.1:9"))
    with pytest.raises(AccountRefused, match="AssumeRole"):
        access.open(AccountRef.model_validate(Sandbox(ACCOUNT_A, moto_url).ref()))
