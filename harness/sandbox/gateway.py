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
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler
from typing import Any

import botocore.session
import urllib3
from botocore import UNSIGNED
from botocore.auth import S3SigV4Auth, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials as BotoCredentials

from harness.core.account import Account
from harness.core.botocore_models import shared_loader
from harness.core.contract import Operation
from harness.core.paths import REGION, SERVICE, new_gateway_directory, socket_in
from harness.core.readonly import is_read
from harness.inside.link import PREAMBLE
from harness.sandbox.faults import error_body
from harness.sandbox.operations import Unidentified, identify, prepare, service_model
from harness.sandbox.tap import MAX_RECORDED_BODY_BYTES, Canned, Exchange, RawRequest, Tap

MAX_BODY_BYTES = 16 * 1024 * 1024
CHUNK_BYTES = 64 * 1024
HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host"})
# Headers the gateway sets itself: the worker's signature, date and token mean nothing here.
RESIGNED = frozenset(
    {"authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "content-length", "expect"}
)
PRESIGNED = frozenset({"x-amz-signature", "x-amz-credential", "x-amz-security-token"})
GLOBAL_SIGNING_REGION = {"aws": "us-east-1", "aws-cn": "cn-north-1", "aws-us-gov": "us-gov-west-1"}
CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 30.0
SETTLE_S = 2.0  # how long `finish` waits for a tapped evaluation's last exchange to be kept
MAX_CONNECTIONS_PER_UID = 32  # open at once, from one evaluation (all its processes)
SHUTDOWN_POLL_S = 0.02  # how often the listening loop looks for `close` (a `stepeval run` waits that long at most)

log = logging.getLogger(__name__)


@dataclass
class Evaluation:
    """One evaluation's account and its log of operations, keyed by its token."""

    sandbox: Account
    operations: list[Operation] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    tap: Tap | None = None  # recording (keeps each exchange) or replay (answers from a recording)
    busy: int = 0  # requests being forwarded; a tap's `observe` runs after the module has its answer
    idle: threading.Condition = field(default_factory=threading.Condition)

    def record(self, operation: Operation) -> None:
        with self.lock:
            self.operations.append(operation)

    @contextlib.contextmanager
    def forwarding(self) -> Iterator[None]:
        with self.idle:
            self.busy += 1
        try:
            yield
        finally:
            with self.idle:
                self.busy -= 1
                self.idle.notify_all()

    def settle(self, timeout_s: float) -> None:
        """Wait (at most `timeout_s`) for requests still being forwarded, so that their exchanges are kept."""
        with self.idle:
            self.idle.wait_for(lambda: self.busy == 0, timeout_s)


@dataclass(frozen=True)
class Upstream:
    """Where a (service, region) request goes, and how it is signed."""

    endpoint_url: str
    signing_name: str
    signing_region: str


def partition_of(region: str) -> str:
    if region.startswith("cn-"):
        return "aws-cn"
    return "aws-us-gov" if region.startswith("us-gov-") else "aws"


@cache
def aws_upstream(service: str, region: str) -> Upstream:
    """The public endpoint of `service` in `region`, as botocore resolves it, and its signing scope.

    S3 goes path-style to its regional endpoint. A global endpoint (IAM, Route 53, CloudFront...) has no region
    in its host and signs in its partition's home region.
    """
    model = service_model(service)
    if service == "s3":
        return Upstream(f"https://s3.{region}.amazonaws.com", "s3", region)
    core = botocore.session.get_session()
    core.register_component("data_loader", shared_loader())
    client = core.create_client(service, region_name=region, config=Config(signature_version=UNSIGNED))
    endpoint = client.meta.endpoint_url
    host = urllib3.util.parse_url(endpoint).host or ""
    signing_region = region if region in host.split(".") else GLOBAL_SIGNING_REGION[partition_of(region)]
    return Upstream(endpoint, model.signing_name or model.endpoint_prefix, signing_region)


def upstream_for(sandbox: Account, service: str, region: str) -> Upstream:
    """The emulator's endpoint when the sandbox names one; the service's AWS endpoint otherwise."""
    if sandbox.endpoint_url:
        model = service_model(service)
        return Upstream(sandbox.endpoint_url.rstrip("/"), model.signing_name or model.endpoint_prefix, region)
    return aws_upstream(service, region)


class Refused(Exception):
    """The request does not go on: the status and the reason, for the log and the module."""

    def __init__(self, status: int, reason: str, operation: str = "?") -> None:
        super().__init__(reason)
        self.status = status
        self.operation = operation


class UpstreamFailed(Exception):
    """An allowed request the endpoint did not answer: a 502 to the module, an `aws` matter, not a refusal."""


def unreachable(endpoint_url: str, exc: urllib3.exceptions.HTTPError) -> str:
    """Why an endpoint did not answer, in one line naming its host and port: what the 502 to the module carries,
    and the answer's `error.detail` with it (the runner reads it from the gateway's log)."""
    url = urllib3.util.parse_url(endpoint_url)
    port = url.port or (443 if url.scheme == "https" else 80)
    if isinstance(exc, urllib3.exceptions.NameResolutionError):
        cause = f"the name {url.host} does not resolve"
    elif isinstance(exc, urllib3.exceptions.NewConnectionError):  # a ConnectTimeoutError too, for urllib3's callers
        errors = [e for e in _chain(exc) if isinstance(e, OSError) and e.strerror]
        cause = errors[0].strerror.lower() if errors else str(exc).rpartition(": ")[2]
    elif isinstance(exc, urllib3.exceptions.ConnectTimeoutError):
        cause = f"no connection within {CONNECT_TIMEOUT_S:g} s"
    elif isinstance(exc, urllib3.exceptions.ReadTimeoutError):
        cause = f"no answer within {READ_TIMEOUT_S:g} s"
    else:
        cause = str(exc).rpartition(": ")[2] or type(exc).__name__
    return f"the endpoint {endpoint_url} ({url.host}:{port}) did not answer: {cause} ({type(exc).__name__})"


def _chain(exc: BaseException | None) -> Iterator[BaseException]:
    """`exc`, its cause and context, and theirs (urllib3 wraps the socket's OSError)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


class GatewayHandler(BaseHTTPRequestHandler):
    """One connection from an evaluation process: the preamble, then HTTP/1.1 requests, kept alive."""

    protocol_version = "HTTP/1.1"
    wbufsize = CHUNK_BYTES  # headers and a small body leave in one write (flushed after each request)
    server: GatewayServer
    evaluation: Evaluation | None = None

    token = ""

    def handle(self) -> None:
        line = self.rfile.readline(128)
        if line.startswith(PREAMBLE):
            self.token = line[len(PREAMBLE) :].strip().decode("ascii", "replace")
            self.evaluation = self.server.gateway.evaluation(self.token)
        if self.evaluation is None:
            return  # no preamble, or an evaluation that is over: the connection is closed unanswered
        super().handle()

    def handle_expect_100(self) -> bool:
        """`100 Continue` must leave at once, not wait in the write buffer for the final answer."""
        going_on = super().handle_expect_100()
        self.wfile.flush()
        return going_on

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the evaluation's log of operations is the record."""

    def do_GET(self) -> None:
        self.forward()

    do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_GET

    def forward(self) -> None:
        """One request: read, classify, sign, send; each is logged before the module can see its answer. Once the
        evaluation is over, a connection kept alive from it is closed unanswered, like a new one."""
        if self.evaluation is None or self.server.gateway.evaluation(self.token) is not self.evaluation:
            self.close_connection = True
            return
        with self.evaluation.forwarding():
            self.forward_one()

    def forward_one(self) -> None:
        assert self.evaluation is not None
        started = time.perf_counter()
        service = "?"
        try:
            service, region, request = self.read_request()
            operation = self.classify(service, request)
            tap = self.evaluation.tap
            canned = tap.answer(service, region, operation, request) if tap is not None else None
            if canned is not None:
                self.log(service, operation, started, allowed=True, status=canned.status)
                self.send_canned(canned)
                return
            response = self.open_upstream(upstream_for(self.evaluation.sandbox, service, region), request)
        except Refused as refusal:
            self.log(service, refusal.operation, started, allowed=False, status=refusal.status, detail=str(refusal))
            self.answer_error(
                service, refusal.status, "AccessDenied" if refusal.status == 403 else "InvalidRequest", str(refusal)
            )
            return
        except UpstreamFailed as failure:
            self.log(service, operation, started, allowed=True, status=502, detail=str(failure))
            self.answer_error(service, 502, "BadGateway", str(failure))
            return
        self.log(service, operation, started, allowed=True, status=response.status)
        kept = bytearray() if tap is not None and tap.wants_body else None
        try:
            self.relay_response(response, kept)
        finally:
            response.release_conn()
        if tap is not None:
            body = bytes(kept or b"")
            tap.observe(
                Exchange(
                    service,
                    region,
                    operation,
                    request,
                    response.status,
                    list(response.headers.items()),
                    body[:MAX_RECORDED_BODY_BYTES],
                    truncated=len(body) > MAX_RECORDED_BODY_BYTES,
                )
            )

    def log(self, service: str, operation: str, started: float, **outcome: Any) -> None:
        assert self.evaluation is not None
        ms = round((time.perf_counter() - started) * 1000, 3)
        self.evaluation.record(Operation(service=service, operation=operation, ms=ms, **outcome))

    def read_request(self) -> tuple[str, str, RawRequest]:
        """The service and region named by the path prefix, and the request relative to the service's endpoint."""
        target, _, query = self.path.partition("?")
        parts = target.split("/", 3)
        if len(parts) < 3 or parts[0] != "" or not SERVICE.fullmatch(parts[1]) or not REGION.fullmatch(parts[2]):
            raise Refused(400, f"{self.command} {target}: not /SERVICE/REGION/... (the gateway's address)")
        service, region = parts[1], parts[2]
        if self.headers.get("transfer-encoding"):
            raise Refused(411, "a chunked request body: reads have a Content-Length")
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY_BYTES:
            raise Refused(413, f"a request body of {length} bytes")
        body = self.rfile.read(length) if length else b""
        headers: dict[str, str] = {}
        for name in {name.lower() for name in self.headers}:
            values = self.headers.get_all(name) or []
            if name in ("x-amz-target", "content-type", "smithy-protocol") and len(values) > 1:
                raise Refused(400, f"{name} given {len(values)} times")
            headers[name] = ", ".join(values)
        request = RawRequest(self.command, "/" + (parts[3] if len(parts) > 3 else ""), query, headers, body)
        if any(key.lower() in PRESIGNED for key, _ in request.query_pairs()):
            raise Refused(400, "a presigned request: the gateway signs every request itself")
        return service, region, request

    def classify(self, service: str, request: RawRequest) -> str:
        """The operation (for the log) once every reading of the request is a read; Refused otherwise."""
        try:
            operations = identify(service, request)
        except Unidentified as exc:
            raise Refused(403, f"refused: {exc}", "(unidentified)") from None
        for name in operations:
            if not is_read(service, name, service_model(service)):
                raise Refused(403, f"refused {service}:{name}: evaluation code may only read", name)
        return operations[0]

    def open_upstream(self, upstream: Upstream, request: RawRequest) -> urllib3.BaseHTTPResponse:
        """Sign with the evaluation's credentials and send; the response, its body not yet read."""
        assert self.evaluation is not None
        url = upstream.endpoint_url.rstrip("/") + request.path + (f"?{request.query}" if request.query else "")
        headers = {k: v for k, v in request.headers.items() if k not in RESIGNED and k not in HOP_BY_HOP}
        aws_request = AWSRequest(method=request.method, url=url, data=request.body, headers=headers)
        creds = self.evaluation.sandbox.credentials
        signer = S3SigV4Auth if upstream.signing_name == "s3" else SigV4Auth
        signer(
            BotoCredentials(creds.access_key, creds.secret_key, creds.token),
            upstream.signing_name,
            upstream.signing_region,
        ).add_auth(aws_request)
        try:
            response = self.server.gateway.http.urlopen(
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
            raise UpstreamFailed(unreachable(upstream.endpoint_url, exc)) from None
        return response

    def relay_response(self, response: urllib3.BaseHTTPResponse, kept: bytearray | None = None) -> None:
        """Stream the answer to the module; `kept` (when recording) gets its body, up to the recording cap."""
        self.send_response_only(response.status, response.reason)
        for name, value in response.headers.items():
            if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                self.send_header(name, value)
        length = response.headers.get("content-length")
        if self.command == "HEAD" or length is not None:
            self.send_header("Content-Length", length or "0")
            self.end_headers()
            if self.command != "HEAD":
                for chunk in response.stream(CHUNK_BYTES, decode_content=False):
                    self.wfile.write(chunk)
                    if kept is not None and len(kept) <= MAX_RECORDED_BODY_BYTES:
                        kept += chunk
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for chunk in response.stream(CHUNK_BYTES, decode_content=False):
            if chunk:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                if kept is not None and len(kept) <= MAX_RECORDED_BODY_BYTES:
                    kept += chunk
        self.wfile.write(b"0\r\n\r\n")

    def send_canned(self, canned: Canned) -> None:
        """A response from a recording, as the endpoint sent it (its length recomputed)."""
        self.send_response_only(canned.status)
        for name, value in canned.headers:
            if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(canned.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(canned.body)

    def answer_error(self, service: str, status: int, code: str, message: str) -> None:
        """An AWS-style error in the service's wire format, so the module's botocore parses and raises it."""
        model = None
        with contextlib.suppress(Unidentified):
            model = service_model(service) if SERVICE.fullmatch(service) else None
        protocol = model.protocol if model is not None else "json"
        body, content_type = error_body(protocol, code, f"stepeval gateway: {message}")
        self.send_response_only(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("x-amzn-ErrorType", code)
        self.end_headers()
        self.wfile.write(body)


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
        self.http = urllib3.PoolManager(maxsize=32, block=False)

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

    def prepare(self, services: Iterable[str]) -> None:
        """Load, in a thread of its own, what the first request of each of these services would (its model, its
        routes), so that an evaluation's first call does not wait for it."""
        wanted = [service for service in services if SERVICE.fullmatch(service)]
        threading.Thread(
            target=lambda: [prepare(s) for s in wanted], name="stepeval-gateway-prepare", daemon=True
        ).start()

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
        self.http.clear()

    def open(self, sandbox: Account, tap: Tap | None = None) -> str:
        """Register an evaluation in `sandbox`'s account; its token, which the evaluation process presents.

        `tap`: record each exchange, or answer from a recording (harness/store/recording.py).
        """
        self.start()
        token = secrets.token_hex(16)
        with self._lock:
            self._evaluations[token] = Evaluation(sandbox, tap=tap)
        return token

    def evaluation(self, token: str) -> Evaluation | None:
        with self._lock:
            return self._evaluations.get(token)

    def finish(self, token: str) -> list[Operation]:
        """End the evaluation: its token opens nothing more; the operations it made, in order."""
        with self._lock:
            evaluation = self._evaluations.pop(token, None)
        if evaluation is None:
            return []
        if evaluation.tap is not None:
            evaluation.settle(SETTLE_S)
        with evaluation.lock:
            return list(evaluation.operations)

    def __enter__(self) -> Gateway:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
