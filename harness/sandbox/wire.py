"""The gateway's reading of HTTP/1.1 off an evaluation's connection: one request at a time, parsed once and
strictly, every part held to what botocore sends and to a bound.

A request is `METHOD SP origin-form SP HTTP/1.1`, then header lines `name: value` (a token, then visible text),
each name once, then exactly Content-Length bytes of body (digits only, at most MAX_BODY_BYTES; no
Transfer-Encoding). The target is RFC 3986's origin form narrowed to the characters botocore writes: the path
holds unreserved characters, `/`, `$`, `@`, `:` and percent-encodings (upper-case hex, never of an unreserved
character, which a server would decode into something else than what was read here), no `.` or `..` segment; the
query holds RFC 3986's query characters but `+` and `;` (a space, a separator, to some servers); no fragment (`#`:
an HTTP client drops what follows it, so the request sent would not be the request read). Anything else is
`Malformed`: the gateway answers 400 and closes the connection.

No HTTP library does this: h11 and http.server accept and normalize what this refuses (folded header lines,
`Content-Length: 5, 5`, repeated headers), and the gateway must judge the bytes it forwards, not a normalization of
them.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from harness.sandbox.tap import RawRequest

MAX_HEAD_BYTES = 32 * 1024  # the request line and the headers
MAX_BODY_BYTES = 1024 * 1024  # a read's parameters (the largest botocore writes for a read are a few KB)
MAX_PREAMBLE_BYTES = 128
READ_S = 10.0  # a request's head and body, from its first byte
IDLE_S = 120.0  # between two requests of one connection
WRITE_S = 30.0  # each write of an answer to the evaluation
RECV_BYTES = 64 * 1024
FREE_BODY_BYTES = 16 * 1024  # a body this small is read without a share of `Bodies` (botocore's reads: a few KB)
BODIES_BYTES = 8 * 1024 * 1024  # larger bodies being read or forwarded at once, all evaluations together...
BODIES_BYTES_EACH = 2 * 1024 * 1024  # ...and of one evaluation

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"})
TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
FIELD_VALUE = re.compile(rb"[\x21-\x7e]+(?:[ \t]+[\x21-\x7e]+)*\Z|\Z")
PCT = r"%[0-9A-F]{2}"
PATH = re.compile(rf"(?:/(?:[A-Za-z0-9\-._~$@:]|{PCT})*)+\Z")
QUERY = re.compile(rf"(?:[A-Za-z0-9\-._~&=!$'()*,:@/?]|{PCT})*\Z")  # RFC 3986's, but `+` and `;` (read otherwise)
PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
DIGITS = re.compile(rb"[0-9]{1,16}\Z")


class Malformed(Exception):
    """A request the gateway will not read: its status (400, 408, 413, 431, 501, 505) and why, in one line."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


class ConnectionEnded(Exception):
    """The evaluation hung up between two requests (or before its first): nothing to answer."""


@dataclass(frozen=True)
class Target:
    """An origin-form request target, checked."""

    path: str
    query: str


def parse_target(raw: str) -> Target:
    """The path and query of `raw` (see the module's docstring); Malformed otherwise."""
    if "#" in raw:
        raise Malformed(400, "a fragment (#) in the request target: HTTP clients do not send it")
    path, sep, query = raw.partition("?")
    if not path.startswith("/") or not PATH.fullmatch(path):
        raise Malformed(400, "a request path with characters botocore does not write (RFC 3986 origin form only)")
    if sep and not QUERY.fullmatch(query):
        raise Malformed(400, "a query string with characters botocore does not write")
    for match in PERCENT.finditer(raw):
        if match.group(1) != match.group(1).upper() or chr(int(match.group(1), 16)) in UNRESERVED:
            raise Malformed(400, f"{match.group(0)} in the request target: a server would read it otherwise")
    if any(segment in (".", "..") for segment in path.split("/")):
        raise Malformed(400, "a path with . or .. segments")
    return Target(path, query)


def parse_head(head: bytes) -> tuple[str, Target, dict[str, str]]:
    """The method, target and headers (lower-case names, each once) of a request head (without its blank line)."""
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3:
        raise Malformed(400, "a request line that is not METHOD TARGET HTTP/1.1")
    method, target, version = parts
    if version != b"HTTP/1.1":
        raise Malformed(505, f"{version[:16]!r}: the gateway speaks HTTP/1.1 only")
    if method.decode("ascii", "replace") not in METHODS:
        raise Malformed(501, f"method {method[:16]!r}")
    try:
        parsed_target = parse_target(target.decode("ascii"))
    except UnicodeDecodeError:
        raise Malformed(400, "a request target that is not ASCII") from None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not TOKEN.fullmatch(name):
            raise Malformed(400, "a header line that is not `name: value` (folded lines included)")
        value = value.strip(b" \t")
        if not FIELD_VALUE.fullmatch(value):
            raise Malformed(400, f"header {name[:64].decode()}: control or non-ASCII characters")
        key = name.decode("ascii").lower()
        if key in headers:
            raise Malformed(400, f"header {key} given twice")
        headers[key] = value.decode("ascii")
    return method.decode("ascii"), parsed_target, headers


def body_length(headers: dict[str, str]) -> int:
    """The declared body size: digits only, at most MAX_BODY_BYTES; no Transfer-Encoding."""
    if "transfer-encoding" in headers:
        raise Malformed(501, "a Transfer-Encoding: the gateway reads bodies of a declared Content-Length only")
    declared = headers.get("content-length")
    if declared is None:
        return 0
    if not DIGITS.fullmatch(declared.encode()):
        raise Malformed(400, f"Content-Length {declared[:32]!r}: not a number of bytes")
    length = int(declared)
    if length > MAX_BODY_BYTES:
        raise Malformed(413, f"a request body of {length} bytes (the gateway takes at most {MAX_BODY_BYTES})")
    return length


class Bodies:
    """The bytes of request bodies the gateway holds at once (read, or being forwarded): at most BODIES_BYTES in all
    and BODIES_BYTES_EACH per evaluation, bodies up to FREE_BODY_BYTES aside. Past either bound a request is refused
    (503) before its body is read: evaluations stalling large bodies cannot grow the service."""

    def __init__(self, total: int = BODIES_BYTES, each: int = BODIES_BYTES_EACH) -> None:
        self.total = total
        self.each = each
        self.held = 0
        self.by_owner: Counter[str] = Counter()
        self._lock = threading.Lock()

    @contextmanager
    def holding(self, owner: str) -> Iterator[Callable[[int], None]]:
        """A request's share: call what it yields with the body's length before reading it (Malformed(503) when
        there is no room); whatever was taken is given back on leaving."""
        taken = [0]

        def take(length: int) -> None:
            if length <= FREE_BODY_BYTES:
                return
            with self._lock:
                if self.held + length > self.total or self.by_owner[owner] + length > self.each:
                    raise Malformed(503, f"a request body of {length} bytes while the gateway holds too many: retry")
                self.held += length
                self.by_owner[owner] += length
                taken[0] += length

        try:
            yield take
        finally:
            if taken[0]:
                with self._lock:
                    self.held -= taken[0]
                    self.by_owner[owner] -= taken[0]
                    if not self.by_owner[owner]:
                        del self.by_owner[owner]


class Reader:
    """Requests off one connection, each whole or Malformed, each read under its own deadline."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = bytearray()

    def preamble(self) -> bytes:
        """The connection's first line (without its newline), however long the evaluation process waits to send it
        (a spare connects before its job exists); ConnectionEnded if it hangs up or sends no line."""
        self.sock.settimeout(None)
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_PREAMBLE_BYTES:
                raise ConnectionEnded()
            self._receive()
        line, _, rest = bytes(self._buffer).partition(b"\n")
        self._buffer[:] = rest
        return line

    def request(self, take: Callable[[int], None] = lambda length: None) -> tuple[RawRequest, bool]:
        """The next request (its target as sent, service prefix included) and whether the client asked to close
        after it; ConnectionEnded if the client hung up before its first byte, Malformed if it is not one. `take` is
        told the body's declared length before it is read (`Bodies.holding`: it may refuse)."""
        if not self._buffer:
            self.sock.settimeout(IDLE_S)
            try:
                self._receive()
            except (TimeoutError, ConnectionEnded):
                raise ConnectionEnded() from None
        deadline = time.monotonic() + READ_S
        while (end := self._buffer.find(b"\r\n\r\n")) < 0:
            if len(self._buffer) > MAX_HEAD_BYTES:
                raise Malformed(431, f"a request head over {MAX_HEAD_BYTES} bytes")
            self._receive_until(deadline)
        if end > MAX_HEAD_BYTES:
            raise Malformed(431, f"a request head over {MAX_HEAD_BYTES} bytes")
        method, target, headers = parse_head(bytes(self._buffer[:end]))
        del self._buffer[: end + 4]
        length = body_length(headers)
        take(length)
        while len(self._buffer) < length:
            self._receive_until(deadline)
        body = bytes(self._buffer[:length])
        del self._buffer[:length]
        closing = headers.get("connection", "").lower() == "close"
        return RawRequest(method, target.path, target.query, headers, body), closing

    def _receive_until(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise Malformed(408, f"a request not read whole within {READ_S:g} s")
        self.sock.settimeout(left)
        try:
            self._receive()
        except TimeoutError:
            raise Malformed(408, f"a request not read whole within {READ_S:g} s") from None
        except ConnectionEnded:
            raise Malformed(400, "the connection ended inside a request") from None

    def _receive(self) -> None:
        chunk = self.sock.recv(RECV_BYTES)
        if not chunk:
            raise ConnectionEnded()
        self._buffer += chunk
