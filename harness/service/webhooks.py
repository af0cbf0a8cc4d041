"""Trust at the door: Standard Webhooks signatures (HMAC-SHA256 over `id.timestamp.body`, 5-minute tolerance)."""

from __future__ import annotations

import base64
import hmac
import json
import re
import time
from collections.abc import Mapping
from typing import Any

from standardwebhooks.webhooks import Webhook, hmac_data

from harness.service.problems import Problem

HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")
MAX_ID_LENGTH = 256
MAX_SIGNATURE_LENGTH = 4096  # a few v1 signatures, space-separated
TIMESTAMP = re.compile(r"[0-9]{1,12}\Z")  # Unix seconds, in ASCII digits (int() takes others, and 5000 of them is slow)
TOLERANCE_S = 5 * 60  # the library's window, either way of the service's clock
SECRET_PREFIX = "whsec_"
# Standard Webhooks: "The secret key should be between 24 bytes (192 bits) and 64 bytes (512 bits)"; a shorter key
# is refused at start-up, a longer one is accepted (HMAC hashes it down; the spec's bound is for interoperability)
MIN_SECRET_BYTES = 24
NEW_SECRET = "stepeval sign --new-secret"


def secret_key(secret: str) -> bytes:
    """The HMAC key of a Standard Webhooks secret (`whsec_` + base64), as the library derives it."""
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX) + "==")


def secret_problem(secret: str) -> str | None:
    """What is wrong with a webhook secret, in words that never show it (None: usable). The caller names the
    variable it came from."""
    try:
        if not secret.startswith(SECRET_PREFIX):
            raise ValueError
        text = secret.removeprefix(SECRET_PREFIX).rstrip("=")
        key = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)  # padded or not, as the library reads it
    except ValueError:
        return f"must be whsec_ followed by base64 (make one with {NEW_SECRET}); the value is not shown"
    if len(key) < MIN_SECRET_BYTES:
        return (
            f"too weak: its key is {len(key)} byte{'' if len(key) == 1 else 's'}, Standard Webhooks secrets are"
            f" {MIN_SECRET_BYTES} to 64 (make one with {NEW_SECRET})"
        )
    return None


def timestamp_problem(stamp: str) -> Problem | None:
    """401 for a webhook-timestamp outside the accepted window, saying how far off it is (None: inside)."""
    offset = int(stamp) - time.time()
    if abs(offset) <= TOLERANCE_S:
        return None
    when = "in the future" if offset > 0 else "old"
    return Problem(
        401,
        "unauthorized",
        f"webhook-timestamp: {round(abs(offset))} s {when}; the service accepts {TOLERANCE_S // 60} minutes either"
        " way of its clock: sign again with the current time (stepeval sign does)",
        field="webhook-timestamp",
    )


def signed_bytes(key: bytes, body: bytes, headers: Mapping[str, str]) -> bool:
    """Whether a v1 signature over the raw bytes matches: for bodies the library cannot decode (not UTF-8); the
    timestamp is checked before."""
    stamp = headers["webhook-timestamp"]
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
    "a signature is v1, then the base64 of HMAC-SHA256 over {webhook-id}.{webhook-timestamp}.{body}, keyed with the"
    " base64-decoded part of the secret after whsec_; the usual causes are another secret than the service's, or a"
    " body changed on the way (curl -d drops newlines: send --data-binary @file); stepeval sign BODY prints the"
    " headers (docs/service.md, 'Signing a request')"
)
NEWLINES_LOST = "the body lost its newlines on the way (as curl -d sends a file): send it with --data-binary @file"
KEYS_SORTED = (
    "signed the body with its keys sorted (as json.dumps(sort_keys=True) or jq -S writes it) and sent them in another"
    " order: sign the exact bytes you send"
)
RESERIALISED = "signed another serialisation of the body than the bytes sent: sign the exact bytes you send"
RENDERINGS: tuple[dict[str, Any], ...] = (
    {},
    {"separators": (",", ":")},
    {"ensure_ascii": False},
    {"indent": 2},
    {"sort_keys": True},
    {"sort_keys": True, "separators": (",", ":")},
    {"sort_keys": True, "indent": 2},
)
# the indentation of a multi-line JSON file left on one line: `{  "a": 1,  "b": 2}`, as curl -d @file sends it
INDENTED_ONE_LINE = re.compile(rb"[{\[,] {2,}[\"{\[\]}0-9tfn-]")
NOT_SIGNED = (
    "missing header webhook-id: the request carries none of the webhook headers (webhook-id, webhook-timestamp,"
    " webhook-signature): sign it (stepeval sign BODY prints them for curl -H @-; when it printed nothing, its error"
    " is on its stderr)"
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
    if len(body) <= RESERIALISED_MAX_BYTES:
        for other, cause in _reserialised(body):
            if _matches(values, hmac_data(key, signed + other)):
                return cause
    if any(HEX_SIGNATURE.match(value) for value in values):
        return "the signature looks hex: Standard Webhooks sends base64; " + HOW_TO_SIGN
    if b"\n" not in body and INDENTED_ONE_LINE.search(body):
        # not verifiable (where the newlines were is lost), so said as a likelihood, after the general rule
        return HOW_TO_SIGN + "; this body looks like an indented file sent on one line, as curl -d sends it"
    return HOW_TO_SIGN


def _matches(values: list[str], digest: bytes) -> bool:
    encoded = base64.b64encode(digest)
    return any(hmac.compare_digest(value.encode(errors="replace"), encoded) for value in values)


def _reserialised(body: bytes) -> list[tuple[bytes, str]]:
    """The body as common JSON libraries write it again (compact, spaced, sorted, indented, with or without a
    final newline), each with what signing it and sending `body` means: what a client that signs a dict and sends
    another rendering of it signed. A rendering whose line breaks alone are gone from `body` (a final newline
    included) is what curl -d does to a file; one that only a key sort gives, a signer that sorted the keys."""
    as_is = {body.rstrip(b"\n"), body + b"\n"}
    by_sort: set[bytes] = set()
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        value = None
    for options in RENDERINGS if value is not None else ():
        try:
            rendered = json.dumps(value, **options).encode()
        except (ValueError, RecursionError, UnicodeError, TypeError):  # a lone surrogate, a key sort across types
            continue
        (by_sort if options.get("sort_keys") else as_is).update({rendered, rendered + b"\n"})
    found = []
    for other in sorted((as_is | by_sort) - {body}):
        if other.replace(b"\r", b"").replace(b"\n", b"") == body:
            found.append((other, NEWLINES_LOST))  # the lines of a file joined, or its final newline dropped
        elif other not in as_is:
            found.append((other, KEYS_SORTED))
        else:
            found.append((other, RESERIALISED))
    return found


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
        if len(missing) == len(HEADERS):
            raise Problem(401, "unauthorized", NOT_SIGNED, field=missing[0])
        if missing:
            raise Problem(401, "unauthorized", f"missing header {missing[0]}", field=missing[0])
        request_id = present["webhook-id"] or ""
        if len(request_id) > MAX_ID_LENGTH or not request_id.isprintable():
            raise Problem(
                401, "unauthorized", "webhook-id: must be at most 256 printable characters", field="webhook-id"
            )
        if not TIMESTAMP.match(present["webhook-timestamp"] or ""):
            raise Problem(401, "unauthorized", "webhook-timestamp: must be Unix seconds", field="webhook-timestamp")
        stale = timestamp_problem(present["webhook-timestamp"] or "")
        if stale is not None:
            raise stale
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
        except Exception:  # the library raises several types for malformed headers; all mean "not trusted"
            raise self._mismatch(body, present) from None
        return request_id

    def _mismatch(self, body: bytes, headers: Mapping[str, str | None]) -> Problem:
        """401 naming the likely cause of a signature that does not match; a hint that cannot be worked out for a
        hostile body (any failure of the guesses) falls back to how to sign: an unsigned request never answers 5xx."""
        try:
            cause = likely_cause(self._key, self._secret, body, {k: v or "" for k, v in headers.items()})
        except Exception:  # a hint is never worth a 500
            cause = HOW_TO_SIGN
        return Problem(401, "unauthorized", f"webhook-signature: {MISMATCH}: {cause}", field="webhook-signature")


def sign(secret: str, msg_id: str, body: bytes, timestamp: float | None = None) -> dict[str, str]:
    """The three headers a platform sends with `body` (for tests, the benchmark and the docs)."""
    stamp = str(int(time.time() if timestamp is None else timestamp))
    signature = base64.b64encode(hmac_data(secret_key(secret), f"{msg_id}.{stamp}.".encode() + body)).decode()
    return {"webhook-id": msg_id, "webhook-timestamp": stamp, "webhook-signature": f"v1,{signature}"}
