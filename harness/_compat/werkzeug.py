"""werkzeug's internals that moto's processes rely on (harness/authoring/emulator.py), and nothing else.

Internals touched (checked against werkzeug 3.1.0 and 3.1.9 by `make test-deps`, pinned < 3.2 in pyproject.toml;
tests/_compat/test_werkzeug.py fails when one moves):
- `WSGIRequestHandler.run_wsgi` (what `handle_one_request` calls for each request: overridden) and
  `make_environ()` (kept: moto's handler extends it), `self.server.app`;
- `BaseWSGIServer.__init__` asks `importlib.metadata.version("werkzeug")` for every server made (one per serving
  copy of moto): that lookup is cached.

werkzeug's development server, which moto's server uses, closes the connection after every answer (and then
waits up to 10 ms for the client to hang up), so every AWS call of a scenario or an evaluation opened a new
connection and cost moto a new thread. `KeptAliveHandler` keeps werkzeug's reading of a request and replaces how
the answer is written: one request after another on a connection, the whole answer in one write, with its length,
the request's unread body (if any) read to its end so that the next request starts where it should.
"""

from __future__ import annotations

import functools
import importlib.metadata
import io
import json
import logging
import traceback
from collections.abc import Callable, Iterable
from typing import Any
from xml.sax.saxutils import escape

from werkzeug.serving import WSGIRequestHandler

DRAIN_CHUNK_BYTES = 1 << 16
NO_BODY_CODES = frozenset({204, 304})
NOT_FORWARDED = frozenset({"connection", "keep-alive", "transfer-encoding"})
EMULATOR_FAILED = "EmulatorFailed"  # the error code of a call moto raised on (see `emulator_failed`)
EMULATOR_FAILED_STATUS = "501 Not Implemented"
log = logging.getLogger(__name__)


def cache_version_lookups() -> None:
    """`importlib.metadata.version` answers from a cache from now on (in moto's processes only: werkzeug asks it
    for its own version for each server made, ~1 ms)."""
    importlib.metadata.version = functools.cache(importlib.metadata.version)
    importlib.metadata.version("werkzeug")


class _CountedInput(io.RawIOBase):
    """The request's body as the app reads it, counted, so that what it left unread can be skipped."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._stream.read(len(buffer))
        buffer[: len(data)] = data
        self.consumed += len(data)
        return len(data)

    def readline(self, size: int | None = -1) -> bytes:
        line = self._stream.readline(-1 if size is None else size)
        self.consumed += len(line)
        return line


class KeptAliveHandler(WSGIRequestHandler):
    """werkzeug's request handler, answering on a connection the client may use again (HTTP/1.1 keep-alive)."""

    protocol_version = "HTTP/1.1"

    def run_wsgi(self) -> None:
        if self.headers.get("Expect", "").lower().strip(" \t") == "100-continue":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        environ = self.make_environ()
        body = _CountedInput(environ["wsgi.input"])
        environ["wsgi.input"] = body
        try:
            status, headers, chunks = _call(self.server.app, environ)
        except Exception as exc:
            log.debug("moto failed on %s %s", self.command, self.path, exc_info=True)  # not the author's terminal
            self.close_connection = True
            status, headers, chunks = emulator_failed(environ, exc)
        self._skip_unread(environ, body)
        self.wfile.write(self._head(status, headers, chunks) + (b"" if self._no_body(status) else b"".join(chunks)))

    def _head(self, status: str, headers: list[tuple[str, str]], chunks: list[bytes]) -> bytes:
        lines = [f"{self.protocol_version} {status}", f"Server: {self.version_string()}"]
        lines.append(f"Date: {self.date_time_string()}")
        lines += [f"{name}: {value}" for name, value in headers if name.lower() not in NOT_FORWARDED]
        if not self._no_body(status) and all(name.lower() != "content-length" for name, _ in headers):
            lines.append(f"Content-Length: {sum(len(chunk) for chunk in chunks)}")
        if self.close_connection:
            lines.append("Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def _no_body(self, status: str) -> bool:
        code = int(status.split(" ", 1)[0])
        return self.command == "HEAD" or 100 <= code < 200 or code in NO_BODY_CODES

    def _skip_unread(self, environ: dict[str, Any], body: _CountedInput) -> None:
        """Read what the app left of the request's body; a body that cannot be read to its end closes the connection."""
        try:
            if environ.get("wsgi.input_terminated"):  # chunked: read to the last chunk
                while body.read(DRAIN_CHUNK_BYTES):
                    pass
                return
            left = int(environ.get("CONTENT_LENGTH") or 0) - body.consumed
            while left > 0:
                data = body.read(min(left, DRAIN_CHUNK_BYTES))
                if not data:
                    break
                left -= len(data)
        except (OSError, ValueError):
            self.close_connection = True


def emulator_failed(environ: dict[str, Any], exc: Exception) -> tuple[str, list[tuple[str, str]], list[bytes]]:
    """The answer to a call moto failed on: `EMULATOR_FAILED`, in the request's protocol's error shape (JSON or
    XML), saying in one line that the emulator failed and how; status 501, which no AWS SDK retries (a 500 is
    retried, and moto fails the same way each time)."""
    summary = " ".join(traceback.format_exception_only(type(exc), exc)[-1].split())
    message = f"the emulator failed on this call (moto: {summary}); this is not an AWS answer"
    if "json" in environ.get("CONTENT_TYPE", ""):
        body = json.dumps({"__type": EMULATOR_FAILED, "message": message}).encode()
        content_type = environ["CONTENT_TYPE"]
    else:
        error = f"<Error><Code>{EMULATOR_FAILED}</Code><Message>{escape(message)}</Message></Error>"
        body = f'<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse>{error}</ErrorResponse>'.encode()
        content_type = "text/xml"
    return EMULATOR_FAILED_STATUS, [("Content-Type", content_type), ("x-amzn-ErrorType", EMULATOR_FAILED)], [body]


def _call(app: Callable[..., Iterable[bytes]], environ: dict[str, Any]) -> tuple[str, list[tuple[str, str]], list]:
    """Run a WSGI app to its end: its status, headers and body chunks."""
    answer: dict[str, Any] = {}
    chunks: list[bytes] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], None]:
        answer["status"], answer["headers"] = status, headers
        return chunks.append

    result = app(environ, start_response)
    try:
        chunks.extend(result)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    return answer["status"], list(answer["headers"]), chunks
