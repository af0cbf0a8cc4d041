"""What the gateway keeps of one AWS exchange when recording is on, and the canonical key replay matches on.

Only headers that identify a request are kept (a whitelist: never `Authorization`, `X-Amz-Security-Token`,
signatures or dates); response bodies are capped. A request's key is its service, region, operation and a
canonical form of its parameters (sorted query and form pairs, JSON re-serialised with sorted keys), so a
replayed module matches the recording whatever order botocore wrote the parameters in.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from harness.sandbox.tap import Canned, Exchange, RawRequest

KEPT_REQUEST_HEADERS = ("x-amz-target", "content-type", "smithy-protocol", "accept")
MAX_EXCHANGES = 2000  # kept per evaluation; later ones are counted
MAX_RECORDED_BYTES = 16 * 1024 * 1024  # of response bodies kept per evaluation; past it, bodies are not kept
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
        except ValueError:
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
            "body": encode_body(request.body),
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
    (`dropped` counts the rest) and MAX_RECORDED_BYTES of their bodies (past it, an exchange is kept without its
    body, `truncated`)."""

    exchanges: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    wants_body: bool = True
    dropped: int = 0
    body_bytes: int = 0

    def answer(self, service: str, region: str, operation: str, request: RawRequest) -> Canned | None:
        return None

    def observe(self, exchange: Exchange) -> None:
        with self.lock:
            if len(self.exchanges) >= MAX_EXCHANGES:
                self.dropped += 1
                return
            if self.body_bytes + len(exchange.body) > MAX_RECORDED_BYTES:
                exchange = dataclasses.replace(exchange, body=b"", truncated=True)
            self.body_bytes += len(exchange.body)
        record = stored(exchange)
        with self.lock:
            self.exchanges.append(record)
