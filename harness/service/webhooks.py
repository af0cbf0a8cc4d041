"""Trust at the door: Standard Webhooks signatures (HMAC-SHA256 over `id.timestamp.body`, 5-minute tolerance)."""

from __future__ import annotations

import base64
import hmac
import json
import re
import time
from collections.abc import Mapping

from standardwebhooks.webhooks import Webhook, hmac_data

from harness.service.problems import Problem

HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")
MAX_ID_LENGTH = 256
MAX_SIGNATURE_LENGTH = 4096  # a few v1 signatures, space-separated
TIMESTAMP = re.compile(r"[0-9]{1,12}\Z")  # Unix seconds, in ASCII digits (int() takes others, and 5000 of them is slow)
TOLERANCE_S = 5 * 60
SECRET_PREFIX = "whsec_"


def secret_key(secret: str) -> bytes:
    """The HMAC key of a Standard Webhooks secret (`whsec_` + base64), as the library derives it."""
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX) + "==")


def signed_bytes(key: bytes, body: bytes, headers: Mapping[str, str]) -> bool:
    """Whether a fresh v1 signature over the raw bytes matches: for bodies the library cannot decode (not UTF-8)."""
    stamp = headers["webhook-timestamp"]
    if abs(time.time() - int(stamp)) > TOLERANCE_S:
        return False
    expected = hmac_data(key, f"{headers['webhook-id']}.{stamp}.".encode() + body)
    for candidate in headers["webhook-signature"].split():
        version, _, signature = candidate.partition(",")
        try:
            if version == "v1" and hmac.compare_digest(base64.b64decode(signature), expected):
                return True
        except ValueError:
            continue
    return False


MISMATCH = "signature does not match"
HOW_TO_SIGN = (
    "sign exactly the bytes sent (docs/service.md, 'Signing a request'; stepeval sign BODY prints the headers)"
)
HEX_SIGNATURE = re.compile(r"[0-9a-fA-F]{64}\Z")
RESERIALISED_MAX_BYTES = 256 * 1024  # past this, a mismatch is not re-serialised to find its cause


def likely_cause(key: bytes, secret: str, body: bytes, headers: Mapping[str, str]) -> str:
    """Why a signature that does not match most likely does not: the usual mistakes, each tried by signing the way
    it signs (no `v1,` prefix, hex instead of base64, the secret's text as the key, the body re-serialised), or how
    to sign. Says nothing of the secret or the expected signature: only a caller who holds the secret can meet
    any of these."""
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode()
    candidates = headers["webhook-signature"].split()
    values = [candidate.partition(",")[2] if "," in candidate else candidate for candidate in candidates]
    if not any(candidate.startswith("v1,") for candidate in candidates):
        return "no signature starts with 'v1,': send webhook-signature: v1,<base64 signature>"
    expected = hmac_data(key, signed + body)
    if any(
        HEX_SIGNATURE.match(value) and hmac.compare_digest(value.lower().encode(), expected.hex().encode())
        for value in values
    ):
        return "the signature is hex: send the HMAC's bytes in base64"
    text_keys = {secret.encode(), secret.removeprefix(SECRET_PREFIX).encode()}
    if any(_matches(values, hmac_data(text, signed + body)) for text in text_keys):
        return (
            "signed with the secret's text as the key: base64-decode the part after whsec_ and key the HMAC with"
            " those bytes"
        )
    if len(body) <= RESERIALISED_MAX_BYTES and any(
        _matches(values, hmac_data(key, signed + other)) for other in _reserialised(body)
    ):
        return "signed another serialisation of the body than the bytes sent: sign the exact bytes you send"
    if any(HEX_SIGNATURE.match(value) for value in values):
        return "the signature looks hex: Standard Webhooks sends base64; " + HOW_TO_SIGN
    return HOW_TO_SIGN


def _matches(values: list[str], digest: bytes) -> bool:
    encoded = base64.b64encode(digest)
    return any(hmac.compare_digest(value.encode(errors="replace"), encoded) for value in values)


def _reserialised(body: bytes) -> list[bytes]:
    """The body as common JSON libraries write it again (compact, spaced, sorted, indented, with or without a
    final newline): what a client that signs a dict and sends another rendering of it signed."""
    variants = {body.rstrip(b"\n"), body + b"\n"}
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return sorted(variants - {body})
    for options in ({}, {"separators": (",", ":")}, {"sort_keys": True}, {"indent": 2}, {"ensure_ascii": False}):
        rendered = json.dumps(value, **options).encode()
        variants |= {rendered, rendered + b"\n"}
    return sorted(variants - {body})


class WebhookVerifier:
    """Checks a request's three webhook headers against its raw body; returns the webhook-id (the request id)."""

    def __init__(self, secret: str) -> None:
        self._webhook = Webhook(secret)
        self._key = secret_key(secret)
        self._secret = secret

    def verify(self, body: bytes, headers: Mapping[str, str]) -> str:
        """The webhook-id of a correctly signed, fresh request; Problem 401 otherwise (never which part failed)."""
        present = {name: headers.get(name) or "" for name in HEADERS}
        missing = [name for name, value in present.items() if not value]
        if missing:
            raise Problem(401, "unauthorized", f"missing header {missing[0]}", field=missing[0])
        request_id = present["webhook-id"] or ""
        if len(request_id) > MAX_ID_LENGTH or not request_id.isprintable():
            raise Problem(
                401, "unauthorized", "webhook-id: must be at most 256 printable characters", field="webhook-id"
            )
        if not TIMESTAMP.match(present["webhook-timestamp"] or ""):
            raise Problem(401, "unauthorized", "webhook-timestamp: must be Unix seconds", field="webhook-timestamp")
        if len(present["webhook-signature"] or "") > MAX_SIGNATURE_LENGTH:
            raise Problem(
                401, "unauthorized", "webhook-signature: longer than any list of signatures", field="webhook-signature"
            )
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            if signed_bytes(self._key, body, present):  # signed, but not text: the body is at fault, not the caller
                raise Problem(400, "invalid_json", "body: is not UTF-8 text", field="body") from None
            raise self._mismatch(body, present) from None
        try:
            self._webhook.verify(body, dict(present), json_parse=False)
        except Exception as exc:  # the library raises several types for malformed headers; all mean "not trusted"
            if "timestamp" in str(exc).lower():
                raise Problem(401, "unauthorized", f"webhook-timestamp: {exc}", field="webhook-timestamp") from None
            raise self._mismatch(body, present) from None
        return request_id

    def _mismatch(self, body: bytes, headers: Mapping[str, str | None]) -> Problem:
        """401 naming the likely cause of a signature that does not match."""
        cause = likely_cause(self._key, self._secret, body, {k: v or "" for k, v in headers.items()})
        return Problem(401, "unauthorized", f"webhook-signature: {MISMATCH}: {cause}", field="webhook-signature")


def sign(secret: str, msg_id: str, body: bytes, timestamp: float | None = None) -> dict[str, str]:
    """The three headers a platform sends with `body` (for tests, the benchmark and the docs)."""
    stamp = str(int(time.time() if timestamp is None else timestamp))
    signature = base64.b64encode(hmac_data(secret_key(secret), f"{msg_id}.{stamp}.".encode() + body)).decode()
    return {"webhook-id": msg_id, "webhook-timestamp": stamp, "webhook-signature": f"v1,{signature}"}
