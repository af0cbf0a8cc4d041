"""Canned AWS errors, for testing how evaluators treat them (AccessDenied, throttling, a 5xx, ...).

`inject_error(client, "AccessDenied", status=403)` answers the client's requests with that error instead of
sending them. The answer is built in the service's own wire format and handed to botocore at `before-send`, so
botocore parses it, retries it and raises it exactly as if AWS had sent it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from botocore.awsrequest import AWSResponse


class CannedBody:
    """A body made here, as botocore reads a response's raw body (`stream`, `read`, `close`)."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self._data

    def read(self, amt: int | None = None) -> bytes:
        data, self._data = self._data, b""
        return data

    def close(self) -> None:
        """Nothing to release."""


def error_body(protocol: str, code: str, message: str) -> tuple[bytes, str]:
    """The error document and content type a service of `protocol` (botocore's name for it) would send."""
    if protocol in ("json", "rest-json"):
        return json.dumps({"__type": code, "message": message}).encode(), "application/x-amz-json-1.1"
    error = f"<Error><Code>{escape(code)}</Code><Message>{escape(message)}</Message></Error>"
    if protocol == "ec2":
        document = f"<Response><Errors>{error}</Errors><RequestID>stepeval-fault</RequestID></Response>"
    elif protocol == "query":
        document = f"<ErrorResponse>{error}<RequestId>stepeval-fault</RequestId></ErrorResponse>"
    else:  # rest-xml (S3...)
        document = error
    return document.encode(), "text/xml"


@dataclass
class Fault:
    """A `before-send` handler answering with one error, for the first `times` requests (all when None).

    `attempts` counts the requests it saw (botocore shows each to every handler and sends the first answer).
    """

    status: int
    body: bytes
    content_type: str
    times: int | None = None
    attempts: int = field(default=0, init=False)

    def __call__(self, request: Any, **_: Any) -> AWSResponse | None:
        self.attempts += 1
        if self.times is not None and self.attempts > self.times:
            return None  # let the request through
        return AWSResponse(request.url, self.status, {"Content-Type": self.content_type}, CannedBody(self.body))


def inject_error(
    client: Any,
    code: str,
    *,
    status: int = 400,
    message: str = "",
    operation: str | None = None,
    times: int | None = None,
) -> Fault:
    """Answer `client`'s requests (only `operation`'s, if given) with the error `code`; the Fault counts attempts."""
    model = client.meta.service_model
    body, content_type = error_body(model.protocol, code, message or code)
    fault = Fault(status, body, content_type, times)
    event = f"before-send.{model.service_id.hyphenize()}" + (f".{operation}" if operation else "")
    client.meta.events.register(event, fault)
    return fault
