"""The read-only gateway: every AWS request of evaluation code passes here, and only reads go on.

It runs in the harness's process (the only one that holds real credentials), listening on a unix socket. An
evaluation process reaches it over its link (harness/inside/link.py), which opens each connection with a
one-line preamble naming the evaluation's random token; requests then address `/{service}/{region}/{path}`. For each
request the gateway reads the operation from botocore's service models (harness/sandbox/operations.py),
refuses anything that is not a read (harness/core/readonly.py), signs what is left with the evaluation's real
credentials, forwards it to the real endpoint (or the emulator's), and streams the answer back. Whatever the
module does (copied credentials, unregistered hooks, hand-signed requests, subprocesses), its requests end
here, and the evaluation's log says which operations were made, allowed or refused.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import secrets
import shutil
import socket
import socketserver
import struct
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

import urllib3
from botocore.auth import S3SigV4Auth, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as BotoCredentials

from harness._compat.botocore import cached_by
from harness.core.account import Account
from harness.core.contract import Operation
from harness.core.paths import REGION, SERVICE, new_gateway_directory, socket_in
from harness.core.readonly import refusal
from harness.inside.link import PREAMBLE
from harness.sandbox import redact
from harness.sandbox.audit import MAX_IN_FLIGHT, Evaluation, Flight, TooManyServices
from harness.sandbox.cut import carrying, pool_manager
from harness.sandbox.faults import error_body
from harness.sandbox.models import MODELS
from harness.sandbox.operations import (
    IDENTIFYING_HEADERS,
    Identified,
    Unidentified,
    identify,
    loaded,
    prepare,
    secret_asked,
)
from harness.sandbox.owner import NotTheSandboxs, account_from, bucket_of, buckets_from, named_accounts, stale
from harness.sandbox.tap import MAX_RECORDED_BODY_BYTES, Canned, Exchange, RawRequest, Tap
from harness.sandbox.unreachable import unreachable
from harness.sandbox.upstream import HOP_BY_HOP, Upstream, Upstreams, emulator_route, forwarded_headers
from harness.sandbox.wire import WRITE_S, Bodies, ConnectionEnded, Malformed, Reader

CHUNK_BYTES = 64 * 1024
PRESIGNED = frozenset({"x-amz-signature", "x-amz-credential", "x-amz-security-token"})
CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 30.0
TURN_POLL_S = 0.1  # how often a request waiting for a turn to blank its answer sees whether its evaluation ended
SETTLE_S = 1.0  # how long `finish` waits for requests still being forwarded before it calls them cut off
MAX_CONNECTIONS_PER_UID = 32  # open at once, from one evaluation (all its processes)
MAX_DETAIL_CHARS = 300
ACCOUNT_POOLS = 256  # accounts whose connections to the endpoints are kept
SHUTDOWN_POLL_S = 0.02  # how often the listening loop looks for `close` (a `stepeval run` waits that long at most)

log = logging.getLogger(__name__)


class Refused(Exception):
    """The request does not go on: the status (403: not a read; else: not read at all), why, and what it was."""

    def __init__(self, status: int, reason: str, operation: str = "?") -> None:
        super().__init__(reason)
        self.status = status
        self.operation = operation


class UpstreamFailed(Exception):
    """An allowed request the endpoint did not answer (or whose answer could not be relayed): a 502 to the module,
    an `aws` matter, not a refusal."""


class GatewayHandler(socketserver.BaseRequestHandler):
    """One connection from an evaluation process: the preamble, then HTTP/1.1 requests, kept alive."""

    request: socket.socket
    server: GatewayServer
    said_close = False  # an answer carried `Connection: close`: the connection ends after it (RFC 9112, 9.6)

    def handle(self) -> None:
        reader = Reader(self.request)
        try:
            line = reader.preamble()
        except (ConnectionEnded, OSError):
            return
        if not line.startswith(PREAMBLE):
            return
        token = line[len(PREAMBLE) :].strip().decode("ascii", "replace")
        evaluation = self.server.gateway.evaluation(token)
        if evaluation is None:
            return  # no preamble, or an evaluation that is over: the connection is closed unanswered
        self.wfile = self.request.makefile("wb", buffering=CHUNK_BYTES)
        try:
            with MODELS.scoped(evaluation.models):  # models no lab names: this evaluation's own
                while self._one(reader, evaluation, token):
                    pass
        finally:
            with contextlib.suppress(OSError):
                self.wfile.close()

    def _one(self, reader: Reader, evaluation: Evaluation, token: str) -> bool:
        """Read, judge and answer one request (its body holding a share of the gateway's `Bodies` until answered);
        whether the connection stays open for another."""
        with self.server.gateway.bodies.holding(token) as take:
            try:
                raw, closing = reader.request(take)
            except (ConnectionEnded, OSError):
                return False
            except Malformed as bad:
                if self.server.gateway.evaluation(token) is evaluation:
                    started = time.perf_counter()
                    self.log(evaluation, "?", "(unread)", started, allowed=False, status=bad.status, detail=str(bad))
                    code = "ServiceUnavailable" if bad.status == HTTPStatus.SERVICE_UNAVAILABLE else "InvalidRequest"
                    self.answer_error(None, bad.status, code, str(bad), closing=True)
                return False
            return self._answer(raw, closing, evaluation, token)

    def _answer(self, raw: RawRequest, closing: bool, evaluation: Evaluation, token: str) -> bool:
        """Judge and answer a request read whole; whether the connection stays open for another."""
        if self.server.gateway.evaluation(token) is not evaluation:
            return False  # the evaluation is over: a connection kept alive from it is closed unanswered, like a new one
        self.request.settimeout(WRITE_S)
        with evaluation.forwarding() as flight:
            if flight is None:
                return False  # the evaluation is ending: this request is not forwarded
            try:
                with carrying(flight):
                    self.forward(evaluation, raw, flight)
            except (urllib3.exceptions.HTTPError, OSError):
                if not evaluation.closing:
                    raise
                return False  # cut at the answer: its upstream connection was shut down
        self.wfile.flush()
        return not (closing or self.said_close)

    def forward(self, evaluation: Evaluation, raw: RawRequest, flight: Flight) -> None:
        """One request: split, classify, sign, send; each is logged before the module can see its answer."""
        started = flight.started
        service, operation = "?", "?"
        try:
            service, region, request = self.split(raw)
            flight.service = service
            if flight.over_cap:
                detail = f"more than {MAX_IN_FLIGHT} requests of one evaluation at once: slow down (retried)"
                self.log(evaluation, service, operation, started, allowed=True, status=503, detail=detail)
                self.answer_error(service, 503, "SlowDown" if service == "s3" else "ThrottlingException", detail)
                return
            try:
                evaluation.uses(service, region)
            except TooManyServices as exc:
                raise Refused(400, str(exc)) from None
            identified = self.classify(service, request)
            operation = flight.operation = identified.operations[0]
            route = emulator_route(request.path) if evaluation.sandbox.endpoint_url else None
            if route is not None:
                raise Refused(403, f"refused {service}:{operation}: /{route}/ is the emulator's own API", operation)
            tap = evaluation.tap
            canned = tap.answer(service, region, operation, request) if tap is not None else None
            if canned is not None:
                self.log(evaluation, service, operation, started, allowed=True, status=canned.status)
                self.send_canned(raw.method, canned)
                return
            upstream = self.server.gateway.upstream(evaluation, service, region)
            try:
                self.keep_to_the_sandbox(evaluation, service, region, request, identified)
            except NotTheSandboxs as other:
                detail = f"{service}:{operation}: {other}"
                self.log(evaluation, service, operation, started, allowed=True, status=404, detail=detail)
                if tap is not None:  # the module read this answer: the record holds it, as it holds the endpoint's
                    headers, body = aws_error(service, "NoSuchBucket", str(other))
                    tap.observe(Exchange(service, region, operation, request, 404, headers, body, False))
                self.answer_error(service, 404, "NoSuchBucket", str(other))  # as the endpoint answers for a bucket
                return  # the account does not have: a check that it exists fails, as it should
            response = self.open_upstream(evaluation, upstream, service, request, identified)
        except Refused as refused:
            reason, status = str(refused), refused.status
            self.log(evaluation, service, refused.operation, started, allowed=False, status=status, detail=reason)
            code = "AccessDenied" if status == 403 else "InvalidRequest"
            self.answer_error(service, status, code, reason, closing=status != 403)
            return
        except UpstreamFailed as failure:
            self.log(evaluation, service, operation, started, allowed=True, status=502, detail=str(failure))
            self.answer_error(service, 502, "BadGateway", str(failure))
            return
        try:
            self.relay(evaluation, service, region, request, identified, response, started)
        finally:
            flight.carriers.clear()  # its connection goes back to the pool: no longer this flight's to cut
            response.release_conn()

    def relay(
        self,
        evaluation: Evaluation,
        service: str,
        region: str,
        request: RawRequest,
        identified: Identified,
        response: urllib3.BaseHTTPResponse,
        started: float,
    ) -> None:
        """The answer to the module, its secrets blanked when its operation's answers can hold some; logged first."""
        operation = identified.operations[0]
        tap = evaluation.tap
        headers = [(k, v) for k, v in response.headers.items() if k.lower() not in HOP_BY_HOP]
        entry = loaded(service)
        model = entry.model.operation_model(operation)
        headers = redact.redact_header_bags(model, headers)
        length = response.headers.get("content-length")
        if (
            200 <= response.status < 300
            and redact.needed(entry.secrets, model, identified.protocol)
            and not redact.streamed(entry.secrets, model, length)
        ):
            try:
                with self.turn_to_blank(evaluation, response):
                    whole = self.read_whole(response)
                    with self.own_turn(evaluation):
                        body = redact.redact(entry.secrets, model, identified.protocol, whole)
            except redact.Unredactable as exc:
                detail = f"its answer's secrets could not be removed: {exc}"
                self.log(evaluation, service, operation, started, allowed=True, status=502, detail=detail)
                self.answer_error(service, 502, "BadGateway", detail)
                return
            headers = redact.redact_headers(entry.secrets, model, headers)
            headers = [(k, v) for k, v in headers if k.lower() not in ("content-length", "content-encoding")]
            headers = [(k, v) for k, v in headers if not k.lower().startswith(redact.CHECKSUM_HEADER)]
            self.log(evaluation, service, operation, started, allowed=True, status=response.status)
            self.send(request.method, response.status, response.reason or "", headers, body)
            kept = body
        else:
            self.log(evaluation, service, operation, started, allowed=True, status=response.status)
            kept_buffer = bytearray() if tap is not None and tap.wants_body else None
            self.stream(request.method, response, headers, kept_buffer)
            kept = bytes(kept_buffer or b"")
        if tap is not None:
            body, truncated = kept[:MAX_RECORDED_BODY_BYTES], len(kept) > MAX_RECORDED_BODY_BYTES
            tap.observe(Exchange(service, region, operation, request, response.status, headers, body, truncated))

    @contextlib.contextmanager
    def turn_to_blank(self, evaluation: Evaluation, response: urllib3.BaseHTTPResponse) -> Iterator[None]:
        """A turn among the answers being blanked at once (redact.AT_ONCE) for an answer that may be large (of
        unknown length, compressed, or over redact.UNGATED_BYTES), taken within the evaluation's own (`own_turn`);
        a small one needs none. Waiting for one ends with the evaluation."""
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) <= redact.UNGATED_BYTES and not response.headers.get("content-encoding"):
            yield
            return
        with self.own_turn(evaluation):  # first: one evaluation holds at most one of the AT_ONCE turns
            _take_turn(self.server.gateway.redacting, evaluation)
            try:
                yield
            finally:
                self.server.gateway.redacting.release()

    @contextlib.contextmanager
    def own_turn(self, evaluation: Evaluation) -> Iterator[None]:
        """The evaluation's turn to blank an answer (taken again by the thread holding it): its answers are blanked
        one at a time, so the CPU redaction takes is charged to it (however many threads it asks from) and not to
        the evaluations beside it. Waiting ends with the evaluation, or after redact.WAIT_S."""
        _take_turn(evaluation.blanking, evaluation)
        try:
            yield
        finally:
            evaluation.blanking.release()

    def log(self, evaluation: Evaluation, service: str, operation: str, started: float, **outcome: Any) -> None:
        ms = round((time.perf_counter() - started) * 1000, 3)
        detail = str(outcome.pop("detail", ""))[:MAX_DETAIL_CHARS]
        evaluation.record(Operation(service=service, operation=operation[:128], ms=ms, detail=detail, **outcome))

    def split(self, raw: RawRequest) -> tuple[str, str, RawRequest]:
        """The service and region named by the path prefix, and the request relative to the service's endpoint."""
        parts = raw.path.split("/", 3)
        if len(parts) < 3 or parts[0] != "" or not SERVICE.fullmatch(parts[1]) or not REGION.fullmatch(parts[2]):
            raise Refused(400, f"{raw.method} {raw.path[:80]}: not /SERVICE/REGION/... (the gateway's address)")
        request = RawRequest(raw.method, "/" + (parts[3] if len(parts) > 3 else ""), raw.query, raw.headers, raw.body)
        if any(key.lower() in PRESIGNED for key, _ in request.query_pairs()):
            raise Refused(400, "a presigned request: the gateway signs every request itself")
        return parts[1], parts[2], request

    def classify(self, service: str, request: RawRequest) -> Identified:
        """What the request is, once every reading of it is a read that asks for no secret; Refused otherwise."""
        try:
            identified = identify(service, request)
        except Unidentified as exc:
            raise Refused(403, f"refused: {exc}", "(unidentified)") from None
        except Malformed as exc:
            raise Refused(exc.status, f"refused: {exc}", "(unidentified)") from None
        entry = loaded(service)
        for name in identified.operations:
            why = refusal(service, name, entry.model)
            if why is not None:
                raise Refused(403, f"refused {service}:{name}: evaluation code may only read ({why})", name)
            obstacle = redact.obstacle(entry.secrets, entry.model.operation_model(name), identified.protocol)
            if obstacle is not None:
                raise Refused(403, f"refused {service}:{name}: {obstacle}", name)
        asked = secret_asked(service, identified, request)
        if asked is not None:
            name = identified.operations[0]
            raise Refused(403, f"refused {service}:{name}: {asked} asks for secrets in the answer", name)
        return identified

    def keep_to_the_sandbox(
        self, evaluation: Evaluation, service: str, region: str, request: RawRequest, identified: Identified
    ) -> None:
        """Refused when the request names another account than the sandbox's (an ARN's, an account-id
        parameter's); NotTheSandboxs for an S3 bucket the sandbox account does not own (harness/sandbox/owner.py)."""
        operation = identified.operations[0]
        named = named_accounts(request)
        if named:
            own = self.own_account(evaluation, region)
            other = sorted(named - {own})
            if other:
                reason = f"refused {service}:{operation}: it names account {other[0]}, not the sandbox account's"
                raise Refused(403, reason, operation)
        if service != "s3":
            return
        bucket = bucket_of(loaded(service).model.operation_model(operation), request)
        if bucket is not None and bucket not in self.own_buckets(evaluation, region, bucket):
            raise NotTheSandboxs(f"bucket {bucket[:80]!r} is not the sandbox account's", bucket)

    def own_account(self, evaluation: Evaluation, region: str) -> str:
        """The sandbox's account id, asked of STS with its credentials once per evaluation."""
        owner = evaluation.owner
        with owner.lock:
            if owner.account_id is None:
                body = b"Action=GetCallerIdentity&Version=2011-06-15"
                headers = {"content-type": "application/x-www-form-urlencoded; charset=utf-8"}
                answer = self.ask_upstream(evaluation, "sts", region, "POST", "/", headers, body)
                try:
                    owner.account_id = account_from(answer)
                except (ET.ParseError, ValueError):
                    raise UpstreamFailed("STS did not say which account the sandbox is") from None
            return owner.account_id

    def own_buckets(self, evaluation: Evaluation, region: str, bucket: str) -> frozenset[str]:
        """The sandbox account's buckets, listed with its credentials once per evaluation (again when `bucket` is
        not among them and the list is older than owner.RELIST_S)."""
        owner = evaluation.owner
        with owner.lock:
            if owner.buckets is None or (bucket not in owner.buckets and stale(owner)):
                answer = self.ask_upstream(evaluation, "s3", region, "GET", "/", {}, b"")
                try:
                    owner.buckets = buckets_from(answer)
                except ET.ParseError:
                    raise UpstreamFailed("S3 did not list the sandbox account's buckets") from None
                owner.listed_at = time.monotonic()
            return owner.buckets

    def ask_upstream(
        self, evaluation: Evaluation, service: str, region: str, method: str, path: str, headers: dict[str, str],
        body: bytes,
    ) -> bytes:  # fmt: skip
        """The gateway's own read, signed with the evaluation's credentials: its answer's body (UpstreamFailed when
        it is not a 200)."""
        upstream = self.server.gateway.upstream(evaluation, service, region)
        url = upstream.endpoint_url.rstrip("/") + path
        aws_request = AWSRequest(method=method, url=url, data=body, headers=headers)
        creds = evaluation.sandbox.credentials
        signer = S3SigV4Auth if upstream.signing_name == "s3" else SigV4Auth
        signer(
            BotoCredentials(creds.access_key, creds.secret_key, creds.token),
            upstream.signing_name,
            upstream.signing_region,
        ).add_auth(aws_request)
        try:
            response = self.server.gateway.http(evaluation.sandbox).urlopen(
                method, url, body=body or None, headers=dict(aws_request.headers.items()), retries=False,
                redirect=False, timeout=urllib3.Timeout(connect=CONNECT_TIMEOUT_S, read=READ_TIMEOUT_S),
            )  # fmt: skip
        except urllib3.exceptions.HTTPError as exc:
            detail = unreachable(
                upstream.endpoint_url, exc, connect_timeout_s=CONNECT_TIMEOUT_S, read_timeout_s=READ_TIMEOUT_S
            )
            raise UpstreamFailed(detail) from None
        if response.status != 200:
            raise UpstreamFailed(f"{service} answered {response.status} to the gateway's own read of the account")
        return bytes(response.data[: redact.MAX_REDACTED_BYTES])

    def open_upstream(
        self, evaluation: Evaluation, upstream: Upstream, service: str, request: RawRequest, identified: Identified
    ) -> urllib3.BaseHTTPResponse:
        """Build the request from its parsed form, check that what is signed and sent is what was classified, sign
        with the evaluation's credentials and send; the response, its body not yet read."""
        endpoint = upstream.endpoint_url.rstrip("/")
        url = endpoint + request.path + (f"?{request.query}" if request.query else "")
        headers = forwarded_headers(service, request, identified)
        self.check_sent(service, url, endpoint, request, headers, identified)
        aws_request = AWSRequest(method=request.method, url=url, data=request.body, headers=headers)
        creds = evaluation.sandbox.credentials
        signer = S3SigV4Auth if upstream.signing_name == "s3" else SigV4Auth
        signer(
            BotoCredentials(creds.access_key, creds.secret_key, creds.token),
            upstream.signing_name,
            upstream.signing_region,
        ).add_auth(aws_request)
        try:
            return self.server.gateway.http(evaluation.sandbox).urlopen(
                request.method,
                url,
                body=request.body or None,
                headers=dict(aws_request.headers.items()),
                preload_content=False,
                decode_content=False,
                retries=False,
                redirect=False,
                timeout=urllib3.Timeout(connect=CONNECT_TIMEOUT_S, read=READ_TIMEOUT_S),
            )
        except urllib3.exceptions.HTTPError as exc:
            detail = unreachable(
                upstream.endpoint_url, exc, connect_timeout_s=CONNECT_TIMEOUT_S, read_timeout_s=READ_TIMEOUT_S
            )
            raise UpstreamFailed(detail) from None

    @staticmethod
    def check_sent(
        service: str, url: str, endpoint: str, request: RawRequest, headers: dict[str, str], classified: Identified
    ) -> None:
        """What the signer signs and the HTTP client sends (the URL as each splits it, the headers kept) must read
        as the operations classified; Refused (and logged as the gateway's fault) if not. When the URL's path and
        query and the headers `identify` reads are the ones classified, the reading is the same by construction;
        otherwise the request as it would be sent is identified again."""
        prefix = urlsplit(endpoint).path
        split, parsed = urlsplit(url), urllib3.util.parse_url(url)
        sent_path = split.path.removeprefix(prefix) if prefix else split.path
        same = (
            split.fragment == ""
            and parsed.fragment is None
            and split.path == (parsed.path or "/")
            and split.query == (parsed.query or "")
            and sent_path == request.path
            and split.query == request.query
        )
        if same and any(request.headers.get(name) != headers.get(name) for name in IDENTIFYING_HEADERS):
            sent = RawRequest(request.method, sent_path, split.query, headers, request.body)
            try:
                same = identify(service, sent) == classified
            except (Unidentified, Malformed):
                same = False
        if not same:
            log.error("gateway: a request would be sent otherwise than it was read: %s %s", request.method, url[:200])
            raise Refused(400, "the request would be sent otherwise than it was read", classified.operations[0])

    def read_whole(self, response: urllib3.BaseHTTPResponse) -> bytes:
        """The answer's body, uncompressed, up to MAX_REDACTED_BYTES (Unredactable past it)."""
        chunks, size = [], 0
        for chunk in response.stream(CHUNK_BYTES, decode_content=True):
            size += len(chunk)
            if size > redact.MAX_REDACTED_BYTES:
                raise redact.Unredactable(f"an answer over {redact.MAX_REDACTED_BYTES} bytes: ask for fewer at a time")
            chunks.append(chunk)
        return b"".join(chunks)

    # -- writing answers ----------------------------------------------------------------------------------------

    def head(self, status: int, reason: str, headers: Iterable[tuple[str, str]]) -> None:
        lines = [f"HTTP/1.1 {status} {reason or 'Status'}\r\n"]
        lines += [f"{name}: {value}\r\n" for name, value in headers]
        self.wfile.write(("".join(lines) + "\r\n").encode("latin-1", "replace"))

    def send(self, method: str, status: int, reason: str, headers: list[tuple[str, str]], body: bytes) -> None:
        """A whole answer, its length counted here."""
        self.head(status, reason, [*headers, ("Content-Length", str(len(body)))])
        if method != "HEAD":
            self.wfile.write(body)

    def stream(
        self, method: str, response: urllib3.BaseHTTPResponse, headers: list[tuple[str, str]], kept: bytearray | None
    ) -> None:
        """Stream the answer to the module; `kept` (when recording) gets its body, up to the recording cap."""
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
        length = response.headers.get("content-length")
        if method == "HEAD" or length is not None:
            self.head(response.status, response.reason or "", [*headers, ("Content-Length", length or "0")])
            if method != "HEAD":
                for chunk in response.stream(CHUNK_BYTES, decode_content=False):
                    self.wfile.write(chunk)
                    if kept is not None and len(kept) <= MAX_RECORDED_BODY_BYTES:
                        kept += chunk
            return
        self.head(response.status, response.reason or "", [*headers, ("Transfer-Encoding", "chunked")])
        for chunk in response.stream(CHUNK_BYTES, decode_content=False):
            if chunk:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                if kept is not None and len(kept) <= MAX_RECORDED_BODY_BYTES:
                    kept += chunk
        self.wfile.write(b"0\r\n\r\n")

    def send_canned(self, method: str, canned: Canned) -> None:
        """A response from a recording, as the endpoint sent it (its length recomputed)."""
        headers = [(k, v) for k, v in canned.headers if k.lower() not in HOP_BY_HOP and k.lower() != "content-length"]
        self.send(method, canned.status, "", headers, canned.body)

    def answer_error(self, service: str | None, status: int, code: str, message: str, *, closing: bool = False) -> None:
        """An AWS-style error in the service's wire format, so the module's botocore parses and raises it."""
        headers, body = aws_error(service, code, message)
        if closing:
            headers.append(("Connection", "close"))
            self.said_close = True
        with contextlib.suppress(OSError):
            self.send("POST", status, HTTPStatus(status).phrase, headers, body)
            self.wfile.flush()


def _take_turn(turn: threading.RLock | threading.BoundedSemaphore, evaluation: Evaluation) -> None:
    """`turn` taken for `evaluation`'s answer; waiting ends with the evaluation, or after redact.WAIT_S."""
    deadline = time.monotonic() + redact.WAIT_S
    while not turn.acquire(timeout=TURN_POLL_S):
        if evaluation.closing:
            raise redact.Unredactable("the evaluation ended while it waited for a turn to blank it")
        if time.monotonic() >= deadline:
            raise redact.Unredactable(f"no turn to blank it within {redact.WAIT_S:g} s")


def aws_error(service: str | None, code: str, message: str) -> tuple[list[tuple[str, str]], bytes]:
    """The headers and body of an AWS-style error in the service's wire format (JSON when it is not known)."""
    protocol = "json"
    if service is not None and SERVICE.fullmatch(service) and service in MODELS:
        with contextlib.suppress(Unidentified):
            protocol = loaded(service).model.protocol
    body, content_type = error_body(protocol, code, f"stepeval gateway: {message}")
    return [("Content-Type", content_type), ("x-amzn-ErrorType", code)], body


def evaluation_of(pid: int) -> int:
    """The evaluation process a process of the harness's uid belongs to (host pid): the nearest ancestor that is
    PID 1 of a PID namespace of its own (sandbox modes root and userns), else its process group (mode none, where
    the filter keeps every process of an evaluation in its group); `pid` itself if /proc says nothing."""
    current = pid
    for _ in range(64):
        try:
            with open(f"/proc/{current}/status", "rb") as status:
                lines = status.read().splitlines()
        except OSError:
            return pid
        nspid = next((line.split()[1:] for line in lines if line.startswith(b"NSpid:")), [])
        if len(nspid) > 1 and nspid[-1] == b"1":
            return current
        if len(nspid) <= 1:
            break
        current = next((int(line.split()[1]) for line in lines if line.startswith(b"PPid:")), 0)
        if current <= 1:
            break
    try:
        return os.getpgid(pid)
    except OSError:
        return pid


def _prepare_each(services: list[str], whole: bool) -> None:
    for service in services:
        if whole:
            prepare(service)
        else:
            with contextlib.suppress(Unidentified):
                loaded(service)


class GatewayServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024  # every spare connects ahead of its job, many at once (the default backlog is 5)

    def __init__(self, path: str, gateway: Gateway) -> None:
        self.gateway = gateway
        self._open_by_uid: Counter[int] = Counter()  # connections open now, per evaluation (its uid, or its process)
        self._uid_of: dict[int, int] = {}  # connection (its fd) -> the evaluation it counts against
        self._counting = threading.Lock()
        super().__init__(path, GatewayHandler)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        """At most MAX_CONNECTIONS_PER_UID open connections per evaluation (the kernel says whose a connection is):
        a module opening thousands would otherwise hold as many threads of the service. An evaluation is its uid
        where it has one of its own (root's are a spare's, before it drops privileges: not counted); where it shares
        the harness's uid, the evaluation process the peer descends from (`evaluation_of`)."""
        pid, uid, _ = struct.unpack("i2I", request.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        if uid == 0:
            return True
        if uid == os.geteuid():
            uid = -evaluation_of(pid)  # negative: never an evaluation's own uid
        with self._counting:
            if self._open_by_uid[uid] >= MAX_CONNECTIONS_PER_UID:
                return False
            self._open_by_uid[uid] += 1
            self._uid_of[request.fileno()] = uid
        return True

    def shutdown_request(self, request: Any) -> None:
        with self._counting:
            uid = self._uid_of.pop(request.fileno(), None)
            if uid is not None:
                self._open_by_uid[uid] -= 1
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection that failed: one log line, never a traceback on the service's output. An evaluation
        process that hangs up before its answer is written (or is killed) is no failure at all."""
        failure = sys.exc_info()[1]
        if not isinstance(failure, OSError):
            log.error("gateway: a connection failed: %s: %s", type(failure).__name__, failure)


class Gateway:
    """The gateway of one harness process: start once, `open` an evaluation, `finish` it for its log."""

    def __init__(self, directory: str | None = None) -> None:
        """`directory`: where to listen (the caller's, kept; evaluation processes may have it bound already);
        a fresh one of our own by default."""
        self._evaluations: dict[str, Evaluation] = {}
        self._lock = threading.Lock()
        self._server: GatewayServer | None = None
        self._directory = directory
        self._owns_directory = directory is None
        self._http: OrderedDict[str, urllib3.PoolManager] = OrderedDict()  # per account: see `http`
        self.upstreams = Upstreams(MODELS.pinned)
        self.redacting = threading.BoundedSemaphore(redact.AT_ONCE)  # answers read whole at once: memory
        self.bodies = Bodies()  # request bodies held at once, in all and per evaluation

    @property
    def socket_path(self) -> str:
        if self._directory is None:
            raise RuntimeError("the gateway is not started")
        return socket_in(self._directory)

    def start(self) -> None:
        """Listen on a unix socket (any local user may connect: a token is what opens an evaluation)."""
        if self._server is not None:
            return
        if self._directory is None:
            self._directory = new_gateway_directory()
        self._server = GatewayServer(self.socket_path, self)
        os.chmod(self.socket_path, 0o666)
        serve = functools.partial(self._server.serve_forever, poll_interval=SHUTDOWN_POLL_S)
        threading.Thread(target=serve, name="stepeval-gateway", daemon=True).start()

    def prepare(self, services: Iterable[str], *, whole: bool = True) -> None:
        """Share these services' models (the labs' files name them) and load them whole, in a thread of their own,
        so that an evaluation's first call does not wait for them and none leaves a trace in them
        (harness/sandbox/models.py). Not `whole` (only loaded) for a gateway that serves one evaluation in its life
        (`stepeval run`): there is no later one to hide its trace from."""
        wanted = [service for service in services if SERVICE.fullmatch(service)]
        MODELS.pin(wanted)
        threading.Thread(
            target=_prepare_each, args=(wanted, whole), name="stepeval-gateway-prepare", daemon=True
        ).start()

    def http(self, sandbox: Account) -> urllib3.PoolManager:
        """The connections to the endpoints kept for `sandbox`'s account (its credentials'), never another's: a
        connection kept alive answers sooner than a new one (a TLS handshake), so a shared one would tell an
        evaluation which endpoints another, of another account, called. At most ACCOUNT_POOLS accounts' kept."""
        key = sandbox.credentials.access_key
        with self._lock:
            manager = self._http.get(key)
            if manager is None:
                manager = self._http[key] = pool_manager(maxsize=32, block=False)  # cut at an evaluation's end
                while len(self._http) > ACCOUNT_POOLS:
                    self._http.popitem(last=False)[1].clear()
            self._http.move_to_end(key)
            return manager

    def upstream(self, evaluation: Evaluation, service: str, region: str) -> Upstream:
        """Where a request of `evaluation` to `service` in `region` goes (harness/sandbox/upstream.py)."""
        return self.upstreams.get(evaluation.sandbox, service, region, evaluation.upstreams)

    def shared_state(self) -> dict[str, int]:
        """What evaluations share of what the gateway fills lazily, counted: the models (those the labs name) and
        what is derived from them, the AWS endpoints resolved, the accounts whose connections are kept. None of
        it may change with what an evaluation does (but the connections of its own account)."""
        models = MODELS.shared()
        return {
            "unread": len(MODELS.unread()),  # the labs' services still being read (none once it is ready)
            "models": len(models),
            "operations": sum(cached_by(entry.model) for entry in models),
            "derived": sum(len(entry.derived) for entry in models),
            "secrets": sum(entry.secrets.derived() for entry in models),
            "endpoints": self.upstreams.shared_count(),
            "accounts": len(self._http),
        }

    def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._directory is not None and self._owns_directory:
            shutil.rmtree(self._directory, ignore_errors=True)
        elif self._directory is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.socket_path)
        with self._lock:
            managers, self._http = list(self._http.values()), OrderedDict()
        for manager in managers:
            manager.clear()

    def open(self, sandbox: Account, tap: Tap | None = None) -> str:
        """Register an evaluation in `sandbox`'s account; its token, which the evaluation process presents.

        `tap`: record each exchange, or answer from a recording (harness/store/recording.py).
        """
        self.start()
        self.upstreams.prepare(sandbox, MODELS.pinned_names())
        token = secrets.token_hex(16)
        with self._lock:
            self._evaluations[token] = Evaluation(sandbox, tap=tap)
        return token

    def evaluation(self, token: str) -> Evaluation | None:
        with self._lock:
            return self._evaluations.get(token)

    def finish(self, token: str) -> list[Operation]:
        """End the evaluation: its token opens nothing more; the operations it made, in order, those still being
        forwarded after SETTLE_S logged as cut off at the answer."""
        with self._lock:
            evaluation = self._evaluations.pop(token, None)
        if evaluation is None:
            return []
        evaluation.end(SETTLE_S)
        return evaluation.log()

    def __enter__(self) -> Gateway:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
