"""Trust at the door: Standard Webhooks signatures (HMAC-SHA256 over `id.timestamp.body`, 5-minute tolerance)."""

from __future__ import annotations

import base64
import hmac
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


class WebhookVerifier:
    """Checks a request's three webhook headers against its raw body; returns the webhook-id (the request id)."""

    def __init__(self, secret: str) -> None:
        self._webhook = Webhook(secret)
        self._key = secret_key(secret)

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
            raise Problem(
                401, "unauthorized", "webhook-signature: signature does not match", field="webhook-signature"
            ) from None
        try:
            self._webhook.verify(body, dict(present), json_parse=False)
        except Exception as exc:  # the library raises several types for malformed headers; all mean "not trusted"
            message = str(exc) if "timestamp" in str(exc).lower() else "signature does not match"
            field = "webhook-timestamp" if "timestamp" in message.lower() else "webhook-signature"
            raise Problem(401, "unauthorized", f"{field}: {message}", field=field) from None
        return request_id


def sign(secret: str, msg_id: str, body: bytes, timestamp: float | None = None) -> dict[str, str]:
    """The three headers a platform sends with `body` (for tests, the benchmark and the docs)."""
    stamp = str(int(time.time() if timestamp is None else timestamp))
    signature = base64.b64encode(hmac_data(secret_key(secret), f"{msg_id}.{stamp}.".encode() + body)).decode()
    return {"webhook-id": msg_id, "webhook-timestamp": stamp, "webhook-signature": f"v1,{signature}"}
