"""Trust at the door: Standard Webhooks signatures (HMAC-SHA256 over `id.timestamp.body`, 5-minute tolerance)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime

from standardwebhooks.webhooks import Webhook

from harness.service.problems import Problem

HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")
MAX_ID_LENGTH = 256


class WebhookVerifier:
    """Checks a request's three webhook headers against its raw body; returns the webhook-id (the request id)."""

    def __init__(self, secret: str) -> None:
        self._webhook = Webhook(secret)

    def verify(self, body: bytes, headers: Mapping[str, str]) -> str:
        """The webhook-id of a correctly signed, fresh request; Problem 401 otherwise (never which part failed)."""
        present = {name: headers.get(name) for name in HEADERS}
        missing = [name for name, value in present.items() if not value]
        if missing:
            raise Problem(401, "unauthorized", f"missing header {missing[0]}", field=missing[0])
        request_id = present["webhook-id"] or ""
        if len(request_id) > MAX_ID_LENGTH or not request_id.isprintable():
            raise Problem(
                401, "unauthorized", "webhook-id: must be at most 256 printable characters", field="webhook-id"
            )
        if not (present["webhook-timestamp"] or "").isdigit():
            raise Problem(401, "unauthorized", "webhook-timestamp: must be Unix seconds", field="webhook-timestamp")
        try:
            self._webhook.verify(body, dict(present), json_parse=False)
        except Exception as exc:  # the library raises several types for malformed headers; all mean "not trusted"
            message = str(exc) if "timestamp" in str(exc).lower() else "signature does not match"
            field = "webhook-timestamp" if "timestamp" in message.lower() else "webhook-signature"
            raise Problem(401, "unauthorized", f"{field}: {message}", field=field) from None
        return request_id


def sign(secret: str, msg_id: str, body: bytes, timestamp: float | None = None) -> dict[str, str]:
    """The three headers a platform sends with `body` (for tests, the benchmark and the docs)."""
    stamp = time.time() if timestamp is None else timestamp
    signature = Webhook(secret).sign(msg_id, datetime.fromtimestamp(stamp, tz=UTC), body.decode())
    return {"webhook-id": msg_id, "webhook-timestamp": str(int(stamp)), "webhook-signature": signature}
