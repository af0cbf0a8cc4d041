"""A signature that does not match is refused with its likely cause, found by signing the usual wrong ways; the
refusal never carries the secret or the signature expected."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import time

import pytest

from harness.service.problems import Problem
from harness.service.webhooks import (
    HOW_TO_SIGN,
    KEYS_SORTED,
    NEWLINES_LOST,
    WebhookVerifier,
    secret_key,
    secret_problem,
    sign,
)

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
BODY = {"step": "01.01", "events": [{"type": "AWS::S3::Bucket", "id": "b"}]}
SENT = json.dumps(BODY).encode()


def refusal(
    signature: str, body: bytes = SENT, *, signed: bytes | None = None, key: bytes | None = None, age_s: int = 0
) -> str:
    """The message of the 401 for `signature` (its `{mac}` filled with the HMAC of `signed` under `key`), sent
    `age_s` seconds after its timestamp."""
    msg_id, stamp = "msg_1", str(int(time.time()) - age_s)
    digest = hmac.new(key or secret_key(SECRET), f"{msg_id}.{stamp}.".encode() + (signed or body), hashlib.sha256)
    header = signature.format(b64=base64.b64encode(digest.digest()).decode(), hex=digest.hexdigest())
    headers = {"webhook-id": msg_id, "webhook-timestamp": stamp, "webhook-signature": header}
    with pytest.raises(Problem) as caught:
        WebhookVerifier(SECRET).verify(body, headers)
    problem = caught.value
    assert (problem.status, problem.code) == (401, "unauthorized")
    assert problem.field == ("webhook-timestamp" if abs(age_s) > 300 else "webhook-signature")
    assert SECRET.removeprefix("whsec_") not in problem.message and digest.hexdigest() not in problem.message
    assert base64.b64encode(digest.digest()).decode() not in problem.message
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
    [json.dumps(BODY, indent=2).encode(), json.dumps(BODY, separators=(",", ":")).encode()],
    ids=["indented", "compact"],
)
def test_a_body_re_serialised_after_signing(signed: bytes) -> None:
    assert refusal("v1,{b64}", signed=signed) == (
        "signed another serialisation of the body than the bytes sent: sign the exact bytes you send"
    )


def test_a_one_line_file_whose_final_newline_curl_dropped_is_named() -> None:
    """`stepeval sign web.json | curl -d @web.json`, web.json one line and a newline: curl -d sends it without."""
    assert refusal("v1,{b64}", body=SENT, signed=SENT + b"\n") == NEWLINES_LOST


def test_a_body_signed_with_its_keys_sorted_is_named() -> None:
    sent = json.dumps({"step": "01.01", "lab": "web-tier"}).encode()  # keys not in order
    for signed in (
        json.dumps(json.loads(sent), sort_keys=True),
        json.dumps(json.loads(sent), sort_keys=True, indent=2),
    ):
        assert refusal("v1,{b64}", body=sent, signed=signed.encode() + b"\n") == KEYS_SORTED
    in_order = json.dumps({"a": 1, "b": 2}).encode()  # sorting changes nothing: said as another serialisation
    compact = json.dumps({"a": 1, "b": 2}, separators=(",", ":"), sort_keys=True).encode()
    assert refusal("v1,{b64}", body=in_order, signed=compact).startswith("signed another serialisation")


def test_a_wrong_secret_is_told_how_to_sign() -> None:
    assert refusal("v1,{b64}", key=b"another key") == HOW_TO_SIGN
    assert refusal("v1,{hex}", key=b"another key").startswith("the signature looks hex: Standard Webhooks sends base64")


def test_a_body_that_is_not_json_is_still_answered() -> None:
    assert refusal("v1,{b64}", body=b"not json", key=b"another key") == HOW_TO_SIGN


def test_the_general_answer_says_what_a_signature_is_over_and_the_usual_causes() -> None:
    said = refusal("v1,{b64}", key=b"another key")
    assert "HMAC-SHA256 over {webhook-id}.{webhook-timestamp}.{body}" in said
    assert "base64-decoded part of the secret after whsec_" in said and said.startswith("a signature is v1, then")
    assert "another secret than the service's" in said and "curl -d drops newlines: send --data-binary @file" in said
    assert "stepeval sign BODY" in said


def test_a_file_whose_newlines_curl_dropped_is_named() -> None:
    on_disk = json.dumps(BODY, indent=2).encode() + b"\n"  # the file the client signed
    assert refusal("v1,{b64}", body=on_disk.replace(b"\n", b""), signed=on_disk) == NEWLINES_LOST


def test_an_indented_body_on_one_line_is_only_said_to_look_so() -> None:
    on_disk = json.dumps(BODY, indent=4).encode()  # an indentation no re-serialisation tried here reproduces
    said = refusal("v1,{b64}", body=on_disk.replace(b"\n", b""), signed=on_disk)
    assert said == HOW_TO_SIGN + "; this body looks like an indented file sent on one line, as curl -d sends it"


@pytest.mark.parametrize(("age_s", "when"), [(912, "old"), (-400, "in the future")], ids=["old", "future"])
def test_a_timestamp_outside_the_window_says_how_far_off_it_is(age_s: int, when: str) -> None:
    signed = sign(SECRET, "msg_t", SENT, timestamp=time.time() - age_s)
    with pytest.raises(Problem) as caught:
        WebhookVerifier(SECRET).verify(SENT, signed)
    message = caught.value.message
    assert (caught.value.status, caught.value.field) == (401, "webhook-timestamp")
    off = re.match(
        rf"webhook-timestamp: ([0-9]+) s {when}; the service accepts 5 minutes either way of its clock", message
    )
    assert off is not None, message
    assert abs(int(off.group(1)) - abs(age_s)) <= 2  # whole seconds of the timestamp, and the test's own time
    assert message.endswith(": sign again with the current time (stepeval sign does)")
    assert "Message timestamp" not in message


def test_a_timestamp_inside_the_window_passes() -> None:
    signed = sign(SECRET, "msg_t", SENT, timestamp=time.time() - 290)
    assert WebhookVerifier(SECRET).verify(SENT, signed) == "msg_t"


@pytest.mark.parametrize(
    ("secret", "problem"),
    [
        ("abc", "must be whsec_ followed by base64"),
        ("whsec_not base64!", "must be whsec_ followed by base64"),
        ("whsec_" + base64.b64encode(b"k" * 23).decode(), "too weak: its key is 23 bytes"),
        ("whsec_" + base64.b64encode(b"k" * 24).decode(), None),
        ("whsec_" + base64.b64encode(b"k" * 64).decode(), None),
    ],
    ids=["no-prefix", "not-base64", "23-bytes", "24-bytes", "64-bytes"],
)
def test_secrets_are_checked_against_the_standard_s_bound(secret: str, problem: str | None) -> None:
    said = secret_problem(secret)
    assert (said is None) if problem is None else (said is not None and said.startswith(problem))
    assert said is None or (secret.removeprefix("whsec_") not in said and "stepeval sign --new-secret" in said)


@pytest.mark.parametrize(
    "body",
    [
        b'{"step":"01.01","x":"\\ud800"}',  # a lone surrogate: json.dumps(ensure_ascii=False) cannot encode it
        b'{"a":' * 5000 + b"1" + b"}" * 5000,  # nested past the parser's depth
        b"[" * 900 + b"]" * 900,  # parses, but re-serialising it nests as deep
        b'{"n":' + b"9" * 5000 + b"}",  # past Python's int digit limit (ValueError, not JSONDecodeError)
        b'{"n":1e999999,"m":-1e999999}',  # infinities, which json.dumps writes as no JSON
        b'{"\\udfff":"\\ud83d","b":[1,"x",null,{"c":"\\u0000"}]}',
    ],
)
def test_a_hostile_unsigned_body_is_refused_never_crashes(body: bytes) -> None:
    """Every hint is worked out for a body nobody signed: whatever it holds, the answer is the 401."""
    said = refusal("v1,{b64}", body=body, key=b"another key")
    assert said == HOW_TO_SIGN


def test_a_request_with_no_webhook_header_is_told_to_sign() -> None:
    with pytest.raises(Problem) as caught:
        WebhookVerifier(SECRET).verify(SENT, {})
    assert (caught.value.status, caught.value.field) == (401, "webhook-id")
    assert caught.value.message.startswith("missing header webhook-id: the request carries none of the webhook")
    assert "stepeval sign BODY" in caught.value.message
    with pytest.raises(Problem) as one:
        WebhookVerifier(SECRET).verify(SENT, {"webhook-id": "msg_1", "webhook-timestamp": "1"})
    assert one.value.message == "missing header webhook-signature"
