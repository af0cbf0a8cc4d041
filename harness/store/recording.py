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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import parse_qsl

from harness.isolation.operations import RawRequest

KEPT_REQUEST_HEADERS = ("x-amz-target", "content-type", "smithy-protocol", "accept")
DROPPED_RESPONSE_HEADERS = frozenset(
    {"authorization", "x-amz-security-token", "set-cookie", "date", "connection", "keep-alive", "transfer-encoding"}
)
MAX_RECORDED_BODY_BYTES = 256 * 1024


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


@dataclass(frozen=True)
class Canned:
    """A response the gateway sends without going upstream (a replayed answer)."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes


@dataclass(frozen=True)
class Exchange:
    """One allowed request and the response the endpoint gave, as the gateway saw them (body capped)."""

    service: str
    region: str
    operation: str
    request: RawRequest
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    truncated: bool

    def stored(self) -> dict[str, Any]:
        """As stored: identifying request parts and the response, nothing that signs or authorises."""
        request = self.request
        kept = {name: request.headers[name] for name in KEPT_REQUEST_HEADERS if name in request.headers}
        return {
            "key": request_key(self.service, self.region, self.operation, request),
            "service": self.service,
            "region": self.region,
            "operation": self.operation,
            "request": {
                "method": request.method,
                "path": request.path,
                "query": request.query,
                "headers": kept,
                "body": encode_body(request.body),
            },
            "response": {
                "status": self.status,
                "headers": [[k, v] for k, v in self.headers if k.lower() not in DROPPED_RESPONSE_HEADERS],
                "body": encode_body(self.body),
                "truncated": self.truncated,
            },
        }


class Tap(Protocol):
    """What the gateway consults for each allowed request when an evaluation has one (record or replay)."""

    def answer(self, service: str, region: str, operation: str, request: RawRequest) -> Canned | None:
        """A canned response (replay), or None to go upstream."""

    def observe(self, exchange: Exchange) -> None:
        """The exchange as it went (recording)."""

    @property
    def wants_body(self) -> bool:
        """Whether the gateway should keep the response body for `observe`."""


@dataclass
class Recorder:
    """A tap that lets every request go upstream and keeps each exchange, in order."""

    exchanges: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    wants_body: bool = True

    def answer(self, service: str, region: str, operation: str, request: RawRequest) -> Canned | None:
        return None

    def observe(self, exchange: Exchange) -> None:
        record = exchange.stored()
        with self.lock:
            self.exchanges.append(record)
