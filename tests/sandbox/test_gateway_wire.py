"""Raw bytes on the gateway's socket, over every protocol: what the gateway forwards is what it read, and anything
it would not read as botocore writes it is refused (`bad_request`, the connection closed) before a byte goes
upstream. The upstream here is a stub HTTP server that records every request reaching it."""

from __future__ import annotations

import http.server
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar
from urllib.parse import parse_qsl

import botocore.loaders
import pytest
import urllib3
from botocore.model import ServiceModel

from harness.core.account import Account, Credentials
from harness.core.readonly import is_read
from harness.inside.link import PREAMBLE
from harness.sandbox import wire
from harness.sandbox.gateway import Gateway, GatewayHandler, Refused
from harness.sandbox.operations import identify, service_model
from harness.sandbox.tap import RawRequest

REGION = "us-east-1"
LABEL = re.compile(r"\{([^}]+?)(\+?)\}")


class Recorder(http.server.BaseHTTPRequestHandler):
    """The stub upstream: records each request line and answers an empty success."""

    protocol_version = "HTTP/1.1"
    seen: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        Recorder.seen.append(f"{self.command} {self.path} {body[:200]!r}")
        content_type = self.headers.get("content-type") or ""
        xml = "form" in content_type or (self.path == "/" and "json" not in content_type)  # as each protocol answers
        answer = b"<Response/>" if xml else b"{}"
        self.send_response(200)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    do_GET = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_POST

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@dataclass
class Line:
    """An evaluation's token on a gateway whose upstream is the recorder."""

    gateway: Gateway
    token: str

    def exchange(self, data: bytes, timeout: float = 10.0, *, until_closed: bool = False) -> bytes:
        """Send `data` after the preamble on a connection of our own; the first answer (whole, by its
        Content-Length), or what came before the gateway closed the connection or `timeout` passed. `until_closed`:
        all that came before the gateway closed it, which it must do within `timeout`."""
        with socket.socket(socket.AF_UNIX) as raw:
            raw.settimeout(timeout)
            raw.connect(self.gateway.socket_path)
            raw.sendall(PREAMBLE + self.token.encode() + b"\n" + data)
            answer = b""
            try:
                while (until_closed or not _whole(answer)) and (chunk := raw.recv(65536)):
                    answer += chunk
            except TimeoutError:
                assert not until_closed, f"the connection was kept open after {answer[:300]!r}"
            return answer


def _whole(answer: bytes) -> bool:
    head, sep, body = answer.partition(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length: *([0-9]+)", head)
    return bool(sep and length and len(body) >= int(length.group(1)))


@pytest.fixture
def line(upstream: str) -> Iterator[Line]:
    Recorder.seen.clear()
    with Gateway() as gateway:
        token = gateway.open(Account(Credentials("testing", "testing"), REGION, upstream))
        yield Line(gateway, token)
        gateway.finish(token)


def status_of(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1.1 "), answer[:200]
    return int(answer[9:12])


def request(method: str, target: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} {target} HTTP/1.1", "Host: gateway", *(f"{k}: {v}" for k, v in headers.items())]
    if body and "Content-Length" not in headers:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


# One read per protocol, as botocore writes it (what the gateway must pass), and its service.
JSON = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.ListTables"}
FORM = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}
CBOR_HEADERS = {"Content-Type": "application/cbor", "smithy-protocol": "rpc-v2-cbor", "Accept": "application/cbor"}
READS = {
    "json": ("POST", "/dynamodb/us-east-1/", JSON, b"{}"),
    "query": ("POST", "/sts/us-east-1/", FORM, b"Action=GetCallerIdentity&Version=2011-06-15"),
    "ec2": ("POST", "/ec2/us-east-1/", FORM, b"Action=DescribeVpcs&Version=2016-11-15"),
    "rest-json": ("GET", "/lambda/us-east-1/2015-03-31/functions", {}, b""),
    "rest-xml": ("GET", "/s3/us-east-1/", {}, b""),
    "smithy-rpc-v2-cbor": (
        "POST", "/cloudwatch/us-east-1/service/GraniteServiceVersion20100801/operation/ListMetrics", CBOR_HEADERS,
        b"\xa0",
    ),
}  # fmt: skip


@pytest.mark.parametrize("protocol", list(READS))
def test_each_protocols_read_as_botocore_writes_it_goes_through(line: Line, protocol: str) -> None:
    method, target, headers, body = READS[protocol]
    answer = line.exchange(request(method, target, headers, body), timeout=3.0)
    assert status_of(answer) == 200, answer[:300]
    assert len(Recorder.seen) == 1
    log = line.gateway.finish(line.token)
    assert [op.allowed for op in log] == [True]


def framing_attacks(method: str, target: str, headers: dict[str, str], body: bytes) -> dict[str, bytes]:
    """The read, broken one way each: what a server and this gateway could read differently."""
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    n = len(body)

    def raw(line: str, extra: str = "", payload: bytes = body, length: str | None = None) -> bytes:
        length_header = f"Content-Length: {n if length is None else length}\r\n" if length != "" else ""
        return f"{line}\r\nHost: gateway\r\n{head}{extra}{length_header}\r\n".encode() + payload

    plain = f"{method} {target} HTTP/1.1"
    folder = target.rstrip("/") + "/"
    return {
        "content-length -1": raw(plain, length="-1"),
        "content-length +n": raw(plain, length=f"+{n}"),
        "content-length n, n": raw(plain, length=f"{n}, {n}"),
        "content-length hex": raw(plain, length=hex(n)),
        "content-length twice": raw(plain, extra=f"Content-Length: {n}\r\n"),
        "content-length past the cap": raw(plain, length=str(wire.MAX_BODY_BYTES + 1), payload=b""),
        "chunked": raw(plain, extra="Transfer-Encoding: chunked\r\n", length="", payload=b"0\r\n\r\n"),
        "content-length and chunked": raw(plain, extra="Transfer-Encoding: chunked\r\n"),
        "HTTP/1.0": raw(f"{method} {target} HTTP/1.0"),
        "absolute form": raw(f"{method} http://gateway{target} HTTP/1.1"),
        "asterisk form": raw(f"{method} * HTTP/1.1"),
        "fragment": raw(f"{method} {target}#x HTTP/1.1"),
        "space in the target": raw(f"{method} {folder}a b HTTP/1.1"),
        "lower-case percent": raw(f"{method} {folder}%2f HTTP/1.1"),
        "encoded dot": raw(f"{method} {folder}%2E%2E/ HTTP/1.1"),
        "encoded letter": raw(f"{method} {folder}%41 HTTP/1.1"),
        "dot segment": raw(f"{method} {folder}../ HTTP/1.1"),
        "backslash": raw(f"{method} {folder}\\ HTTP/1.1"),
        "non-ASCII target": raw(f"{method} {folder}é HTTP/1.1"),
        "semicolon in the query": raw(f"{method} {target}?a=1;Action=CreateVpc HTTP/1.1"),
        "plus in the query": raw(f"{method} {target}?a+b=1 HTTP/1.1"),
        "folded header": raw(plain, extra="X-Amz-Folded: a\r\n b\r\n"),
        "header without colon": raw(plain, extra="X-Amz-Broken\r\n"),
        "control character in a header": raw(plain, extra="X-Amz-Nul: a\x01b\r\n"),
        "header twice": raw(plain, extra="X-Amz-Twice: a\r\nX-Amz-Twice: b\r\n"),
        "content-encoding": raw(plain, extra="Content-Encoding: gzip\r\n"),
        "head past the cap": raw(plain, extra=f"X-Amz-Padding: {'a' * wire.MAX_HEAD_BYTES}\r\n"),
        "unknown method": raw(f"BREW {target} HTTP/1.1"),
        "bare newlines": raw(plain).replace(b"\r\n", b"\n"),
    }


ATTACKS = sorted(framing_attacks(*READS["json"]))


@pytest.mark.parametrize("protocol", list(READS))
@pytest.mark.parametrize("attack", ATTACKS)
def test_a_request_read_otherwise_than_botocore_writes_it_goes_nowhere(
    line: Line, protocol: str, attack: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wire, "READ_S", 1.0)
    data = framing_attacks(*READS[protocol])[attack]
    answer = line.exchange(data, timeout=5.0, until_closed=True)  # closed after its answer, as the answer says
    assert Recorder.seen == [], f"{attack} reached the upstream"
    if attack == "bare newlines":  # no head ever ends: the read deadline closes it
        assert answer == b"" or status_of(answer) == 408
        return
    assert 400 <= status_of(answer) < 600 and b"Connection: close" in answer, answer[:300]
    log = line.gateway.finish(line.token)
    assert log and all(not op.allowed and op.refusal in ("bad_request", "read_only") for op in log), log


def test_a_request_not_sent_whole_in_time_is_closed(line: Line, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire, "READ_S", 0.5)
    method, target, headers, body = READS["json"]
    answer = line.exchange(request(method, target, headers, body)[:-1])  # one byte short, then silence
    assert status_of(answer) == 408 and Recorder.seen == []


# -- the bodies each protocol reads ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data"),
    [
        # issue 25: a read's Action in the query, a write's form in a body of another media type
        ("text/plain body beside an Action", request(
            "POST", "/ec2/us-east-1/?Action=GetEbsEncryptionByDefault&Version=2016-11-15",
            {"Content-Type": "text/plain"}, b"Action=DisableEbsEncryptionByDefault&Version=2016-11-15")),
        ("form body with a semicolon", request(
            "POST", "/ec2/us-east-1/", FORM, b"Action=DescribeVpcs;Action=CreateVpc")),
        ("form body not ASCII", request("POST", "/ec2/us-east-1/", FORM, "Action=DescribeVpcs&x=é".encode())),
        ("JSON sent as text", request("POST", "/dynamodb/us-east-1/", {**JSON, "Content-Type": "text/plain"}, b"{}")),
        ("JSON sent as a form", request(
            "POST", "/dynamodb/us-east-1/", {**JSON, "Content-Type": FORM["Content-Type"]}, b"Action=DeleteTable")),
        ("JSON with a name twice", request(
            "POST", "/ssm/us-east-1/", {"Content-Type": "application/x-amz-json-1.1",
                                        "X-Amz-Target": "AmazonSSM.GetParameterHistory"},
            b'{"Name":"x","WithDecryption":false,"WithDecryption":true}')),
        ("JSON with NaN", request("POST", "/dynamodb/us-east-1/", JSON, b'{"Limit":NaN}')),
        ("JSON not an object", request("POST", "/dynamodb/us-east-1/", JSON, b"[]")),
        ("a body on a REST read that takes none", request(
            "GET", "/lambda/us-east-1/2015-03-31/functions", {"Content-Type": "application/json"}, b'{"a":1}')),
        ("CBOR sent as JSON", request(
            "POST", "/cloudwatch/us-east-1/service/GraniteServiceVersion20100801/operation/ListMetrics",
            {**CBOR_HEADERS, "Content-Type": "application/json"}, b"{}")),
        ("a smithy-protocol this gateway does not know", request(
            "POST", "/cloudwatch/us-east-1/service/GraniteServiceVersion20100801/operation/ListMetrics",
            {**CBOR_HEADERS, "smithy-protocol": "rpc-v3"}, b"\xa0")),
        ("X-Amz-Target on a query service", request(
            "POST", "/sts/us-east-1/", {**FORM, "X-Amz-Target": "AWSSecurityTokenServiceV20110615.AssumeRole"},
            b"Action=GetCallerIdentity")),
    ],
)  # fmt: skip
def test_a_body_its_protocol_does_not_send_goes_nowhere(line: Line, name: str, data: bytes) -> None:
    answer = line.exchange(data, timeout=3.0)
    assert Recorder.seen == [], f"{name} reached the upstream"
    assert status_of(answer) in (400, 403), answer[:300]
    assert all(not op.allowed for op in line.gateway.finish(line.token))


# -- issue 25's `#` attacks, on every read/write pair of URI templates botocore's models hold ------------------


def _tokens(path: str) -> list[tuple[str, str]]:
    found, last = [], 0
    for label in LABEL.finditer(path):
        if label.start() > last:
            found.append(("literal", path[last : label.start()]))
        found.append(("label", label.group(2)))
        last = label.end()
    if last < len(path):
        found.append(("literal", path[last:]))
    return found


def _regex(token: tuple[str, str]) -> str:
    return re.escape(token[1]) if token[0] == "literal" else (".+" if token[1] else "[^/]+")


def _fill(tokens: list[tuple[str, str]], value: str) -> str:
    return "".join(text if kind == "literal" else value for kind, text in tokens)


@dataclass(frozen=True)
class Pair:
    """A write W whose request, cut at a `#`, is what a target shaped like the read R's template becomes."""

    service: str
    read: str
    write: str
    method: str
    target: str  # as the module sends it, the service prefix included

    def __str__(self) -> str:
        return f"{self.service}:{self.read}/{self.write}"


def fragment_pairs() -> list[Pair]:
    """Every (read, write) pair of a REST model where the write's path, a `#` and more matches the read's
    template: a gateway that read the target as received logged the read, and the HTTP client sent the write."""
    loader = botocore.loaders.create_loader()
    found = []
    for service in loader.list_available_services("service-2"):
        model = ServiceModel(loader.load_service_model(service, "service-2"), service)
        if not any(p.startswith("rest") for p in model.metadata.get("protocols") or [model.metadata["protocol"]]):
            continue
        http = {name: model.operation_model(name).http for name in model.operation_names}
        for write, write_http in http.items():
            write_path, _, write_query = write_http.get("requestUri", "/").partition("?")
            if is_read(service, write, model) or any(k and not k.startswith("x-id") for k in write_query.split("&")):
                continue
            cut = _fill(_tokens(write_path), "x")
            for read, read_http in http.items():
                if read == write or read_http.get("method") != write_http.get("method"):
                    continue
                if not is_read(service, read, model):
                    continue
                read_path, _, read_query = read_http.get("requestUri", "/").partition("?")
                tokens = _tokens(read_path)
                for index, (kind, greedy) in enumerate(tokens):
                    before = "".join(map(_regex, tokens[:index])) + (".*" if greedy else "[^/]*")
                    if kind != "label" or not re.fullmatch(before, cut):
                        continue
                    path = f"{cut}#y{_fill(tokens[index + 1 :], 'y')}"
                    if re.fullmatch("".join(map(_regex, tokens)), path):
                        query = f"?{read_query}" if read_query else ""
                        found.append(
                            Pair(service, read, write, write_http["method"], f"/{service}/{REGION}{path}{query}")
                        )
                        break
    return found


@pytest.fixture(scope="module")
def pairs() -> list[Pair]:
    """Computed when the tests run, not when they are collected: it reads every REST model botocore has."""
    return fragment_pairs()


def test_the_pairs_are_real_attacks(pairs: list[Pair]) -> None:
    """Each pair: what the HTTP client sends of the target is the write's request, and there are as many as the
    issue found (52 across the models of its botocore; the count moves with botocore's models)."""
    assert len(pairs) >= 40 and {"guardduty", "iot", "s3"} <= {pair.service for pair in pairs}
    for pair in pairs:
        sent = urllib3.util.parse_url(pair.target)
        path = sent.path.split("/", 3)[3]
        if unsent_required_query(pair, sent.query or ""):  # S3's CompleteMultipartUpload without its uploadId:
            continue  # no endpoint can do the write, and the gateway reads it as none (issue 31)
        readings = identify(pair.service, RawRequest(pair.method, "/" + path, sent.query or "", {}, b"")).operations
        assert pair.write in readings, (pair, readings)


def unsent_required_query(pair: Pair, query: str) -> list[str]:
    """The write's required query members the sent request lacks."""
    shape = service_model(pair.service).operation_model(pair.write).input_shape
    sent = {key for key, _ in parse_qsl(query, keep_blank_values=True)}
    return [
        str(member.serialization.get("name", name))
        for name, member in (shape.members.items() if shape is not None else [])
        if name in shape.required_members
        and member.serialization.get("location") == "querystring"
        and member.type_name not in ("list", "map")
        and str(member.serialization.get("name", name)) not in sent
    ]


def test_a_fragment_never_turns_a_read_into_a_write(upstream: str, pairs: list[Pair]) -> None:
    """Every pair, each on an evaluation of its own: refused as bad_request, nothing reaches the upstream."""
    Recorder.seen.clear()
    got = {}
    with Gateway() as gateway:
        for pair in pairs:
            line = Line(gateway, gateway.open(Account(Credentials("testing", "testing"), REGION, upstream)))
            body = b"{}" if pair.service != "s3" else b""
            headers = {"Content-Type": "application/json"} if body else {}
            answer = line.exchange(request(pair.method, pair.target, headers, body), timeout=3.0)
            log = gateway.finish(line.token)
            got[str(pair)] = (status_of(answer), b"fragment" in answer, [(op.allowed, op.refusal) for op in log])
    wrong = {name: outcome for name, outcome in got.items() if outcome != (400, True, [(False, "bad_request")])}
    assert not wrong, wrong
    assert Recorder.seen == []


@pytest.mark.parametrize(
    ("url", "headers"),
    [("http://upstream/#x", FORM), ("http://upstream/a/../", FORM), ("http://upstream/", {})],
    ids=["a fragment in what would be sent", "a path the HTTP client would rewrite", "a form no longer sent as one"],
)
def test_what_would_be_signed_and_sent_must_read_as_what_was_classified(url: str, headers: dict[str, str]) -> None:
    """The last check before signing: the URL as the signer and the HTTP client split it, and the headers kept,
    identify the same operations; anything else is refused (and logged as the gateway's fault)."""
    read = RawRequest("POST", "/", "", {k.lower(): v for k, v in FORM.items()}, b"Action=DescribeVpcs")
    classified = identify("ec2", read)
    GatewayHandler.check_sent("ec2", "http://upstream/", "http://upstream", read, dict(read.headers), classified)
    with pytest.raises(Refused, match="sent otherwise than it was read"):
        GatewayHandler.check_sent(
            "ec2", url, "http://upstream", read, {k.lower(): v for k, v in headers.items()}, classified
        )


@pytest.mark.parametrize(
    ("name", "data"),
    [
        # issue 25, third attacker: an emulator routes on the path first (moto's /moto-api/ resets every account)
        ("a JSON read sent to a path", request("POST", "/logs/us-east-1/moto-api/data.json", {
            "Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": "Logs_20140328.DescribeLogGroups"}, b"{}")),
        ("a JSON read sent as GET", request("GET", "/dynamodb/us-east-1/", JSON, b"")),
        ("a query read sent to a path", request(
            "POST", "/iam/us-east-1/moto-api/reset?Action=ListUsers&Version=2010-05-08", {}, b"")),
        ("a query read sent as PUT", request("PUT", "/sts/us-east-1/", FORM, b"Action=GetCallerIdentity")),
        ("a CBOR read sent as GET", request(
            "GET", "/cloudwatch/us-east-1/service/GraniteServiceVersion20100801/operation/ListMetrics",
            CBOR_HEADERS, b"")),
        ("GetObject on the emulator's API", request("GET", "/s3/us-east-1/moto-api/data.json", {}, b"")),
        ("GetObject on it, encoded", request("GET", "/s3/us-east-1/%6Doto-API/reset", {}, b"")),
        ("GetObject on its instance metadata", request("GET", "/s3/us-east-1/latest/meta-data/iam", {}, b"")),
    ],
)  # fmt: skip
def test_a_read_sent_where_its_model_does_not_send_it_goes_nowhere(line: Line, name: str, data: bytes) -> None:
    answer = line.exchange(data, timeout=3.0)
    assert Recorder.seen == [], f"{name} reached the upstream"
    assert status_of(answer) in (400, 403), answer[:300]  # 400: the wire refuses what a server would decode
    log = line.gateway.finish(line.token)
    assert log and all(not op.allowed for op in log), log


def test_large_bodies_held_at_once_are_bounded_per_evaluation_and_in_all(line: Line, upstream: str) -> None:
    """Issue 31: 4 evaluations x 32 connections x a 1 MiB body stalled on its last byte grew the service ~190 MiB.
    A body past an evaluation's share (BODIES_BYTES_EACH) or the gateway's (BODIES_BYTES) is answered 503 before it
    is read; a small read still goes through, and the shares come back when the stalled connections end."""
    method, target, headers, _ = READS["json"]
    big = json.dumps({"ExclusiveStartTableName": "a" * (wire.MAX_BODY_BYTES - 64)}).encode()
    stalled_head = request(method, target, {**headers, "Content-Length": str(len(big))})
    owners = [line.token] + [
        line.gateway.open(Account(Credentials("testing", "testing"), REGION, upstream)) for _ in range(4)
    ]
    held: list[socket.socket] = []
    try:
        for token in owners[:4]:  # each evaluation takes its share with two bodies: the four take all of it
            for _ in range(2):
                raw = socket.socket(socket.AF_UNIX)
                raw.settimeout(10)
                raw.connect(line.gateway.socket_path)
                raw.sendall(PREAMBLE + token.encode() + b"\n" + stalled_head + big[:-1])
                held.append(raw)
        while line.gateway.bodies.held < wire.BODIES_BYTES - 8 * 64:
            time.sleep(0.01)  # until the gateway has read the eight heads
        assert line.gateway.bodies.held <= wire.BODIES_BYTES
        third = Line(line.gateway, owners[0]).exchange(stalled_head)  # past its evaluation's share
        other = Line(line.gateway, owners[4]).exchange(stalled_head)  # past the gateway's
        for answer in (third, other):
            assert status_of(answer) == 503 and b"ServiceUnavailable" in answer
        assert status_of(Line(line.gateway, owners[4]).exchange(request(*READS["json"]))) == 200  # small: read
    finally:
        for raw in held:
            raw.close()
    while line.gateway.bodies.held:
        time.sleep(0.01)  # each stalled request ends with its connection, and gives its share back
    assert not line.gateway.bodies.by_owner
    for token in owners[1:]:
        line.gateway.finish(token)
