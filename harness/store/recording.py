"""What the gateway keeps of one AWS exchange when recording is on, and the canonical key replay matches on.

Only headers that identify a request are kept (a whitelist: never `Authorization`, `X-Amz-Security-Token`,
signatures or dates); response bodies are capped. A request's key is its service, region, operation and a
canonical form of its parameters (sorted query and form pairs, JSON re-serialised with sorted keys), so a
replayed module matches the recording whatever order botocore wrote the parameters in.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from harness.sandbox.tap import MAX_RECORDED_BODY_BYTES, Canned, Exchange, RawRequest

KEPT_REQUEST_HEADERS = ("x-amz-target", "content-type", "smithy-protocol", "accept")
MAX_EXCHANGES = 2000  # kept per evaluation; later ones are counted, by operation
MAX_RECORDED_BYTES = 16 * 1024 * 1024  # of request and response bodies kept per evaluation; past it, none are kept
MAX_OPERATIONS_NAMED = 50  # of the operations dropped, those the recording names (the most frequent)
INCOMPLETE = "incomplete"  # the key of the recording's last entry when it is not whole (`RecordingTap.incomplete`)
DROPPED_RESPONSE_HEADERS = frozenset(
    {"authorization", "x-amz-security-token", "set-cookie", "date", "connection", "keep-alive", "transfer-encoding"}
)


def encode_body(body: bytes) -> dict[str, str]:
    """Text as text (readable in the store), anything else as base64."""
    try:
        return {"text": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(body).decode("ascii")}


def decode_body(raw: Mapping[str, str]) -> bytes:
    if "base64" in raw:
        return base64.b64decode(raw["base64"], validate=True)
    return str(raw["text"]).encode("utf-8")


def canonical_body(content_type: str, body: bytes) -> str:
    """The body with its parameters in a fixed order; the raw bytes' digest when it is neither form nor JSON."""
    if not body:
        return ""
    if content_type.startswith("application/x-www-form-urlencoded"):
        return json.dumps(sorted(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)))
    if "json" in content_type:
        try:
            return json.dumps(json.loads(body), sort_keys=True, separators=(",", ":"))
        except (ValueError, RecursionError):  # not JSON, or nested past what the parser reads: its digest
            pass
    return "sha256:" + hashlib.sha256(body).hexdigest()


def request_key(service: str, region: str, operation: str, request: RawRequest) -> str:
    """Operation + canonical parameters: what replay looks a request up by."""
    canonical = json.dumps(
        [
            service,
            region,
            operation,
            request.method,
            request.path,
            sorted(request.query_pairs()),
            request.headers.get("x-amz-target", ""),
            canonical_body(request.headers.get("content-type", ""), request.body),
        ],
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def stored(exchange: Exchange) -> dict[str, Any]:
    """As stored: identifying request parts and the response, nothing that signs or authorises."""
    request = exchange.request
    kept = {name: request.headers[name] for name in KEPT_REQUEST_HEADERS if name in request.headers}
    return {
        "key": request_key(exchange.service, exchange.region, exchange.operation, request),
        "service": exchange.service,
        "region": exchange.region,
        "operation": exchange.operation,
        "request": {
            "method": request.method,
            "path": request.path,
            "query": request.query,
            "headers": kept,
            "body": encode_body(request.body[:MAX_RECORDED_BODY_BYTES]),
            "truncated": len(request.body) > MAX_RECORDED_BODY_BYTES,
        },
        "response": {
            "status": exchange.status,
            "headers": [[k, v] for k, v in exchange.headers if k.lower() not in DROPPED_RESPONSE_HEADERS],
            "body": encode_body(exchange.body),
            "truncated": exchange.truncated,
        },
    }


@dataclass
class RecordingTap:
    """A tap that lets every request go upstream and keeps each exchange, in order: at most MAX_EXCHANGES of them
    (the rest counted by operation, `dropped`) and MAX_RECORDED_BYTES of their request and response bodies (past
    it, an exchange is kept without its bodies, `truncated`, and counted). `incomplete` says what is missing."""

    exchanges: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    wants_body: bool = True
    dropped: int = 0
    dropped_operations: Counter[str] = field(default_factory=Counter)
    without_bodies: int = 0
    body_bytes: int = 0

    def answer(self, service: str, region: str, operation: str, request: RawRequest) -> Canned | None:
        return None

    def observe(self, exchange: Exchange) -> None:
        request = exchange.request
        size = min(len(request.body), MAX_RECORDED_BODY_BYTES) + len(exchange.body)
        with self.lock:
            if len(self.exchanges) >= MAX_EXCHANGES:
                self.dropped += 1
                self.dropped_operations[f"{exchange.service}:{exchange.operation}"] += 1
                return
            whole = self.body_bytes + size <= MAX_RECORDED_BYTES
            if whole:
                self.body_bytes += size
            else:
                self.without_bodies += 1
        record = stored(exchange)  # its key from the whole request, before any body is left out
        if not whole:
            record["request"]["body"], record["request"]["truncated"] = encode_body(b""), bool(request.body)
            record["response"]["body"], record["response"]["truncated"] = encode_body(b""), True
        with self.lock:
            self.exchanges.append(record)

    def incomplete(self) -> dict[str, Any] | None:
        """What the recording lacks (exchanges dropped, by operation; exchanges kept without their bodies), or None
        when it is whole."""
        with self.lock:
            if not self.dropped and not self.without_bodies:
                return None
            return {
                "exchanges_dropped": self.dropped,
                "operations_dropped": dict(self.dropped_operations.most_common(MAX_OPERATIONS_NAMED)),
                "exchanges_without_bodies": self.without_bodies,
                "limits": {"exchanges": MAX_EXCHANGES, "body_bytes": MAX_RECORDED_BYTES},
            }

    def recording(self) -> list[dict[str, Any]]:
        """The exchanges as stored, followed by an `INCOMPLETE` entry when some are missing or bodiless."""
        summary = self.incomplete()
        with self.lock:
            kept = list(self.exchanges)
        return [*kept, {INCOMPLETE: summary}] if summary else kept
