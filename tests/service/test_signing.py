"""A signature that does not match is refused with its likely cause, found by signing the usual wrong ways; the
refusal never carries the secret or the signature expected."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest

from harness.service.problems import Problem
from harness.service.webhooks import HOW_TO_SIGN, WebhookVerifier, secret_key, sign

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
BODY = {"step": "01.01", "events": [{"type": "AWS::S3::Bucket", "id": "b"}]}
SENT = json.dumps(BODY).encode()


def refusal(signature: str, body: bytes = SENT, *, signed: bytes | None = None, key: bytes | None = None) -> str:
    """The message of the 401 for `signature` (its `{mac}` filled with the HMAC of `signed` under `key`)."""
    msg_id, stamp = "msg_1", str(int(time.time()))
    digest = hmac.new(key or secret_key(SECRET), f"{msg_id}.{stamp}.".encode() + (signed or body), hashlib.sha256)
    header = signature.format(b64=base64.b64encode(digest.digest()).decode(), hex=digest.hexdigest())
    headers = {"webhook-id": msg_id, "webhook-timestamp": stamp, "webhook-signature": header}
    with pytest.raises(Problem) as caught:
        WebhookVerifier(SECRET).verify(body, headers)
    problem = caught.value
    assert (problem.status, problem.code, problem.field) == (401, "unauthorized", "webhook-signature")
    assert SECRET.removeprefix("whsec_") not in problem.message and digest.hexdigest() not in problem.message
    return problem.message.removeprefix("webhook-signature: signature does not match: ")


def test_a_right_signature_passes() -> None:
    assert WebhookVerifier(SECRET).verify(SENT, sign(SECRET, "msg_ok", SENT)) == "msg_ok"


def test_no_v1_prefix() -> None:
    assert refusal("{b64}") == "no signature starts with 'v1,': send webhook-signature: v1,<base64 signature>"


def test_hex_instead_of_base64() -> None:
    assert refusal("v1,{hex}") == "the signature is hex: send the HMAC's bytes in base64"


@pytest.mark.parametrize("text", [SECRET, SECRET.removeprefix("whsec_")], ids=["whole", "after whsec_"])
def test_the_secret_s_text_as_the_key(text: str) -> None:
    assert refusal("v1,{b64}", key=text.encode()).startswith("signed with the secret's text as the key: base64-decode")


@pytest.mark.parametrize(
    "signed",
    [json.dumps(BODY, indent=2).encode(), json.dumps(BODY, separators=(",", ":")).encode(), SENT + b"\n"],
    ids=["indented", "compact", "newline"],
)
def test_a_body_re_serialised_after_signing(signed: bytes) -> None:
    assert refusal("v1,{b64}", signed=signed) == (
        "signed another serialisation of the body than the bytes sent: sign the exact bytes you send"
    )


def test_a_wrong_secret_is_told_how_to_sign() -> None:
    assert refusal("v1,{b64}", key=b"another key") == HOW_TO_SIGN
    assert refusal("v1,{hex}", key=b"another key").startswith("the signature looks hex: Standard Webhooks sends base64")


def test_a_body_that_is_not_json_is_still_answered() -> None:
    assert refusal("v1,{b64}", body=b"not json", key=b"another key") == HOW_TO_SIGN
