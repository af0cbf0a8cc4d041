"""`stepeval sign BODY`: the three Standard Webhooks headers for a request body, as curl reads them (`-H @file`), so
that an integrator can send the documented request without writing code; `--new-secret` makes a secret.

The signing is the `standardwebhooks` library's (the service verifies with it); the secret is read from
STEPEVAL_WEBHOOK_SECRET, as the service reads it, never from the command line (where `ps` would show it).
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

from standardwebhooks.webhooks import Webhook

from harness.core.errors import BadInput
from harness.service.webhooks import NEW_SECRET, SECRET_PREFIX, secret_problem

SECRET_ENV = "STEPEVAL_WEBHOOK_SECRET"


def new_secret() -> str:
    """A fresh secret: whsec_ and 32 random bytes in base64, as Standard Webhooks writes them."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def signing_secret() -> Webhook:
    """The service's secret from the environment; BadInput saying how to make one when it is missing or malformed
    (never echoing it)."""
    raw = os.environ.get(SECRET_ENV, "")
    if not raw:
        raise BadInput(f"{SECRET_ENV}: is required (the secret shared with the service: make one with {NEW_SECRET})")
    problem = secret_problem(raw)
    if problem is not None:
        raise BadInput(f"{SECRET_ENV}: {problem}")
    return Webhook(raw)


def read_body(source: str) -> str:
    """The body exactly as it will be sent (a file, or stdin for "-"): UTF-8 JSON, or empty (the admin reload takes
    an empty body), else BadInput naming it."""
    name = "stdin" if source == "-" else source
    try:
        raw = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
        text = raw.decode("utf-8")
    except OSError as exc:
        raise BadInput(f"{name}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise BadInput(f"{name}: is not UTF-8 text (the service reads JSON)") from None
    if not text.strip():
        return text
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{name}: is not valid JSON: {exc}") from None
    return text


def signed_headers(webhook: Webhook, body: str, msg_id: str | None = None) -> dict[str, str]:
    """webhook-id (a fresh one unless given: keep it when retrying a message), webhook-timestamp (now) and
    webhook-signature over exactly `body`."""
    msg_id = msg_id or f"msg_{uuid.uuid4().hex}"
    now = datetime.now(UTC)
    signature = webhook.sign(msg_id, now, body)
    return {"webhook-id": msg_id, "webhook-timestamp": str(int(now.timestamp())), "webhook-signature": signature}


def run_sign(body: str | None, *, msg_id: str | None, make_secret: bool) -> int:
    """Print the headers (one `name: value` line each, what `curl -H @file` reads), or a new secret."""
    if make_secret:
        print(new_secret())
        return 0
    if body is None:
        raise BadInput("sign: name the body file (or - for stdin), or --new-secret")
    if msg_id is not None and not (0 < len(msg_id) <= 256 and msg_id.isprintable()):
        raise BadInput("--id: must be 1 to 256 printable characters")
    webhook = signing_secret()
    for name, value in signed_headers(webhook, read_body(body), msg_id).items():
        print(f"{name}: {value}")
    return 0
