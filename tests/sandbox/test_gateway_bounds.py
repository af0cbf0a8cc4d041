"""Everything the gateway keeps for an evaluation is bounded, and every request it saw is in the log: its entries
(the first MAX_LOGGED, then a count that keeps any refusal), their details, the services one evaluation may call,
the models it reads (its own, bounded in bytes; those the labs name shared and whole), and a request still being
forwarded when the evaluation ends (logged as cut off at the answer)."""

from __future__ import annotations

import contextlib
import http.client
import http.server
import json
import threading
import time
from collections.abc import Iterator

import pytest

from harness._compat.botocore import cached_by
from harness.core.account import Account, Credentials
from harness.core.contract import Operation
from harness.core.frames import FrameRefused, parse_frame
from harness.inside.link import GatewayLink
from harness.sandbox import audit
from harness.sandbox import gateway as gateway_module
from harness.sandbox import models as models_module
from harness.sandbox import operations as operations_module
from harness.sandbox.gateway import Gateway
from harness.sandbox.models import MODELS, ModelCache, read_model
from harness.sandbox.tap import Exchange, RawRequest
from harness.sandbox.upstream import Upstream, Upstreams
from harness.store import recording
from harness.store.recording import RecordingTap
from tests.conftest import REGION

FORM = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}


class Slow(http.server.BaseHTTPRequestHandler):
    """An upstream that answers after `delay_s`, and says when a request has arrived."""

    protocol_version = "HTTP/1.1"
    delay_s = 0.0
    arrived = threading.Event()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        Slow.arrived.set()
        time.sleep(Slow.delay_s)
        body = b"<GetCallerIdentityResponse/>"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the gateway gave up on it: as it should
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def upstream() -> Iterator[str]:
    Slow.delay_s, Slow.arrived = 0.0, threading.Event()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture
def opened(upstream: str) -> Iterator[tuple[Gateway, str]]:
    with Gateway() as gateway:
        yield gateway, gateway.open(Account(Credentials("testing", "testing"), REGION, upstream))


READ_OF = {"sts": b"Action=GetCallerIdentity", "iam": b"Action=ListUsers", "sqs": b"Action=ListQueues"}


def connection(gateway: Gateway, token: str) -> http.client.HTTPConnection:
    link = GatewayLink()
    link.attach(gateway.socket_path, token)
    return link.take(5.0)


def post(line: http.client.HTTPConnection, target: str, body: bytes) -> int:
    line.request("POST", target, body=body, headers=FORM)
    response = line.getresponse()
    response.read()
    return response.status


def test_the_log_keeps_its_first_entries_and_counts_the_rest_refusals_included(
    opened: tuple[Gateway, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit, "MAX_LOGGED", 20)
    gateway, token = opened
    line = connection(gateway, token)
    for _ in range(30):
        assert post(line, "/sts/us-east-1/", b"Action=GetCallerIdentity") == 200
    assert post(line, "/ec2/us-east-1/", b"Action=CreateVpc&CidrBlock=10.0.0.0%2F16") == 403  # past the bound
    log = gateway.finish(token)
    assert len(log) == 21 and all(op.allowed for op in log[:20])
    last = log[-1]
    assert not last.allowed and last.refusal == "read_only" and "11 more requests" in last.operation, last


def test_a_refusals_detail_is_bounded(opened: tuple[Gateway, str]) -> None:
    gateway, token = opened
    line = connection(gateway, token)
    assert post(line, "/nosuchservice-" + "x" * 40 + "/us-east-1/" + "a/" * 10_000, b"") == 403
    (refused,) = gateway.finish(token)
    assert not refused.allowed and len(refused.detail) <= gateway_module.MAX_DETAIL_CHARS


@pytest.mark.parametrize(
    ("bound", "allowed", "past", "detail"),
    [
        ("MAX_SERVICES", ["/sts/us-east-1/", "/iam/us-east-1/", "/sts/us-east-1/"], "/sqs/us-east-1/",
         "more than 2 services"),
        ("MAX_ENDPOINTS", ["/sts/us-east-1/", "/sts/eu-west-1/", "/sts/us-east-1/"], "/sts/eu-west-2/",
         "(service, region) pairs"),
    ],
)  # fmt: skip
def test_an_evaluation_calls_a_bounded_number_of_services_and_endpoints(
    opened: tuple[Gateway, str], monkeypatch: pytest.MonkeyPatch, bound: str, allowed: list[str], past: str,
    detail: str,
) -> None:  # fmt: skip
    """Each may be a model to read or an endpoint to resolve; one already counted (the third) counts no more."""
    monkeypatch.setattr(audit, bound, 2)
    gateway, token = opened
    line = connection(gateway, token)
    for target in allowed:
        assert post(line, target, READ_OF[target.split("/")[1]]) == 200
    line = connection(gateway, token)  # the refusal below closes its connection
    assert post(line, past, READ_OF[past.split("/")[1]]) == 400
    log = gateway.finish(token)
    assert [op.refusal for op in log] == [None, None, None, "bad_request"]
    assert detail in log[-1].detail


def answered_during_a_read(opened: tuple[Gateway, str], delay_s: float) -> list[Operation]:
    """The evaluation's log when it answers while a read it sent is still upstream (answered after `delay_s`)."""
    Slow.delay_s = delay_s
    gateway, token = opened
    line = connection(gateway, token)
    threading.Thread(target=post, args=(line, "/sts/us-east-1/", b"Action=GetCallerIdentity"), daemon=True).start()
    assert Slow.arrived.wait(10)
    return gateway.finish(token)


def test_a_request_still_forwarded_at_the_answer_is_logged_as_cut_off(
    opened: tuple[Gateway, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gateway_module, "SETTLE_S", 0.2)
    (cut,) = answered_during_a_read(opened, delay_s=3.0)
    assert (cut.service, cut.operation, cut.allowed) == ("sts", "GetCallerIdentity", True)
    assert cut.detail.startswith("cut off at the answer")


def test_a_request_that_ends_within_the_settling_time_is_logged_as_itself(
    opened: tuple[Gateway, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gateway_module, "SETTLE_S", 5.0)
    (done,) = answered_during_a_read(opened, delay_s=0.5)
    assert (done.operation, done.status, done.detail) == ("GetCallerIdentity", 200, "")


def test_the_model_cache_is_bounded_in_bytes_and_keeps_the_pinned() -> None:
    sizes = {service: read_model(service).size for service in ("sts", "sqs", "iam", "kms")}
    cache = ModelCache(max_bytes=sizes["sqs"] + sizes["iam"])
    cache.pin(["kms"])
    for service in ("kms", "sts", "sqs", "iam"):
        cache.get(service)
    assert "kms" in cache and "sts" not in cache and "sqs" in cache and "iam" in cache
    assert cache.unpinned_bytes() <= cache.max_bytes
    cache.get("sts")  # the least recently used unpinned one goes
    assert "sqs" not in cache and "kms" in cache and cache.unpinned_bytes() <= cache.max_bytes


@pytest.mark.parametrize("depth", [65, 10_000, 1_000_000])
def test_a_frame_nested_past_the_bound_is_refused_without_a_recursion_error(depth: int) -> None:
    payload = b'{"a":' + b"[" * depth + b"]" * depth + b"}"
    with pytest.raises(FrameRefused):
        parse_frame(payload)
    within = parse_frame(b'{"a":' + b"[" * 30 + b"]" * 30 + b"}")["a"]
    for _ in range(29):
        (within,) = within
    assert within == []


def test_a_recording_keeps_a_bounded_number_of_exchanges_and_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recording, "MAX_EXCHANGES", 3)
    monkeypatch.setattr(recording, "MAX_RECORDED_BYTES", 250)
    tap = RecordingTap()
    request = RawRequest("POST", "/", "", {}, b"Action=GetCallerIdentity")
    for _ in range(5):
        tap.observe(Exchange("sts", REGION, "GetCallerIdentity", request, 200, [], b"x" * 100, truncated=False))
    assert len(tap.exchanges) == 3 and tap.dropped == 2
    assert [exchange["response"]["truncated"] for exchange in tap.exchanges] == [False, False, True]
    assert tap.body_bytes <= 250
    assert tap.incomplete() == {
        "exchanges_dropped": 2,
        "operations_dropped": {"sts:GetCallerIdentity": 2},
        "exchanges_without_bodies": 1,
        "limits": {"exchanges": 3, "body_bytes": 250},
    }
    assert tap.recording()[-1] == {recording.INCOMPLETE: tap.incomplete()}


def test_request_bodies_count_against_the_recordings_bound() -> None:
    """Issue 31: 64 reads with 1 MiB request bodies made a 48 MiB recording; request bodies count now."""
    tap = RecordingTap()
    request = RawRequest("POST", "/", "", {"content-type": "application/x-amz-json-1.1"}, b"{" + b" " * 2**20 + b"}")
    for _ in range(64):
        tap.observe(Exchange("logs", REGION, "DescribeLogGroups", request, 200, [], b"{}", truncated=False))
    assert len(json.dumps(tap.recording())) <= recording.MAX_RECORDED_BYTES * 2  # text, with its JSON escapes
    assert tap.body_bytes <= recording.MAX_RECORDED_BYTES
    summary = tap.incomplete()
    assert len(tap.exchanges) == 64  # every exchange kept, each request body capped, the last past the bound bodiless
    assert summary is not None and summary["exchanges_without_bodies"] == 1 and summary["exchanges_dropped"] == 0
    assert all(len(e["request"]["body"]["text"]) <= 256 * 1024 for e in tap.exchanges)
    assert all(e["request"]["truncated"] for e in tap.exchanges)


def test_a_body_no_parser_reads_is_recorded_raw_not_a_crash() -> None:
    """Issue 31: `text/xml; charset=json` with 40,000 nested arrays crashed the recorder (RecursionError)."""
    tap = RecordingTap()
    body = b"[" * 40_000 + b"]" * 40_000
    request = RawRequest("POST", "/", "", {"content-type": "text/xml; charset=json"}, body)
    tap.observe(Exchange("sts", REGION, "GetCallerIdentity", request, 200, [], b"<ok/>", truncated=False))
    assert len(tap.exchanges) == 1 and tap.exchanges[0]["request"]["body"] == {"text": body.decode()}


def shared_names() -> set[str]:
    return {entry.model.service_name for entry in MODELS.shared()}


@pytest.fixture
def own_models(monkeypatch: pytest.MonkeyPatch) -> ModelCache:
    """The process's models as a fresh process has them: none that another test of this worker read outside any
    evaluation (into the cache of those read unscoped) is held."""
    models = ModelCache()
    for module in (models_module, gateway_module, operations_module):
        monkeypatch.setattr(module, "MODELS", models)
    return models


def test_a_model_no_lab_names_is_the_evaluations_own_and_a_shared_one_is_read_whole(
    own_models: ModelCache, upstream: str
) -> None:
    """Issue 31: what an evaluation makes the gateway load tells a later one nothing. Redshift and CloudSearch (no
    test pins them) are read into the evaluation's cache and go with it; STS, pinned, is read whole once."""
    with Gateway() as gateway:
        token = gateway.open(Account(Credentials("testing", "testing"), REGION, upstream))
        gateway.prepare(["sts"])
        for _ in range(100):
            if not gateway.shared_state()["unread"]:
                break
            time.sleep(0.05)
        sts = next(entry for entry in own_models.shared() if entry.model.service_name == "sts")
        assert cached_by(sts.model) == len(sts.model.operation_names)  # every operation's model, made as it was read
        line = connection(gateway, token)
        assert post(line, "/sts/us-east-1/", b"Action=GetCallerIdentity") == 200  # the account's connections kept
        before = gateway.shared_state()
        post(line, "/redshift/eu-south-2/", b"Action=DescribeClusters&Version=2012-12-01")
        post(line, "/cloudsearch/me-central-1/", b"Action=DescribeDomains&Version=2013-01-01")
        own = gateway.evaluation(token)
        assert own is not None and {"redshift", "cloudsearch"} <= set(own.models.names())
        gateway.finish(token)
        assert gateway.shared_state() == before
        assert not {"redshift", "cloudsearch"} & {entry.model.service_name for entry in own_models.shared()}
        assert "redshift" not in own_models  # outside the evaluation: not held anywhere it could be found


def test_an_endpoint_is_shared_only_for_a_shared_service_in_a_region_opened() -> None:
    """An AWS endpoint is resolved once for the labs' services in the region of an evaluation opened (before its
    module asks); any other the evaluation asks for is its own."""
    upstreams = Upstreams(shared=lambda service: service == "sts")
    account = Account(Credentials("testing", "testing"), "eu-west-1")
    upstreams.prepare(account, ["sts", "sqs"])
    for _ in range(100):
        if upstreams.shared_count():
            break
        time.sleep(0.05)
    assert upstreams.shared_count() == 1
    own: dict[tuple[str, str], Upstream] = {}
    assert upstreams.get(account, "sts", "eu-west-1", own).endpoint_url == "https://sts.eu-west-1.amazonaws.com"
    upstreams.get(account, "sqs", "eu-west-1", own)
    upstreams.get(account, "sts", "ap-south-2", own)
    assert set(own) == {("sqs", "eu-west-1"), ("sts", "ap-south-2")} and upstreams.shared_count() == 1


def test_an_evaluations_answers_are_blanked_one_at_a_time_and_others_beside_it(
    upstream: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31: a module's 16 threads made the gateway scan their answers at once, in the service's process, and
    `/healthz` and a neighbour waited. One evaluation's answers are blanked one at a time (its own turn); another
    evaluation's beside them."""
    from concurrent.futures import ThreadPoolExecutor

    from harness.sandbox import redact

    blanking: dict[str, int] = {"now": 0, "most": 0}
    counting = threading.Lock()
    real = redact.redact

    def watched(*args: object) -> bytes:
        with counting:
            blanking["now"] += 1
            blanking["most"] = max(blanking["most"], blanking["now"])
        time.sleep(0.05)  # long enough for the other threads' answers to arrive meanwhile
        try:
            return real(*args)  # type: ignore[arg-type]
        finally:
            with counting:
                blanking["now"] -= 1

    monkeypatch.setattr(redact, "redact", watched)

    def reads(gateway: Gateway, token: str) -> list[int]:
        with ThreadPoolExecutor(8) as pool:
            lines = [connection(gateway, token) for _ in range(8)]
            return list(pool.map(lambda line: post(line, "/sts/us-east-1/", READ_OF["sts"]), lines))

    with Gateway() as gateway:
        account = Account(Credentials("testing", "testing"), REGION, upstream)
        one = gateway.open(account)
        assert reads(gateway, one) == [200] * 8
        assert blanking["most"] == 1  # one evaluation: one at a time
        two = [gateway.open(account) for _ in range(2)]
        with ThreadPoolExecutor(2) as both:
            assert list(both.map(lambda token: reads(gateway, token), two)) == [[200] * 8] * 2
        assert blanking["most"] == 2  # two evaluations: each its own turn
        for token in [one, *two]:
            gateway.finish(token)
