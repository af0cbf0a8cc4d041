"""Where an allowed request goes and what of it goes: the endpoint and signing scope of a (service, region), and the
request's headers that are forwarded (those botocore's protocols send and those the operation's model names).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import unquote

import botocore.loaders
import botocore.session
import urllib3
from botocore import UNSIGNED
from botocore.config import Config

from harness.core.account import Account
from harness.sandbox.operations import Identified, headers_of, loaded
from harness.sandbox.tap import RawRequest

HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host"})
# Headers the gateway sets itself: the worker's signature, date and token mean nothing here.
RESIGNED = frozenset(
    {"authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "content-length", "expect"}
)
# What goes upstream of a request's headers: those botocore's protocols send, and those the operation's model
# names; nothing else (a header no model names is no parameter of the read, and may be one of a server's own).
FORWARDED = frozenset({"content-type", "accept", "user-agent", "x-amz-target", "smithy-protocol", "content-md5"})
FORWARDED_PREFIXES = ("x-amz-", "x-amzn-", "amz-sdk-")
GLOBAL_SIGNING_REGION = {"aws": "us-east-1", "aws-cn": "cn-north-1", "aws-us-gov": "us-gov-west-1"}


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


def aws_upstream(service: str, region: str) -> Upstream:
    """The public endpoint of `service` in `region`, as botocore resolves it, and its signing scope.

    S3 goes path-style to its regional endpoint. A global endpoint (IAM, Route 53, CloudFront...) has no region
    in its host and signs in its partition's home region. Resolved by a client made on a loader of its own, dropped
    after: only the endpoint is kept (by `Upstreams`).
    """
    model = loaded(service).model
    if service == "s3":
        return Upstream(f"https://s3.{region}.amazonaws.com", "s3", region)
    core = botocore.session.get_session()
    core.register_component("data_loader", botocore.loaders.create_loader())
    client = core.create_client(service, region_name=region, config=Config(signature_version=UNSIGNED))
    endpoint = client.meta.endpoint_url
    host = urllib3.util.parse_url(endpoint).host or ""
    signing_region = region if region in host.split(".") else GLOBAL_SIGNING_REGION[partition_of(region)]
    return Upstream(endpoint, model.signing_name or model.endpoint_prefix, signing_region)


class Upstreams:
    """The AWS endpoints resolved (each takes a client's making: tens of ms), kept so that no evaluation can tell
    what another asked for: those of a service the labs name (`shared`, harness/sandbox/models.py) in a region an
    evaluation was opened in (the platform's choice: `prepare` resolves them all for it before its module runs)
    are shared; any other is kept by the evaluation that asked (its `own`), and dropped with it."""

    def __init__(self, shared: Callable[[str], bool]) -> None:
        self._shared_service = shared
        self._shared: dict[tuple[str, str], Upstream] = {}
        self._regions: set[str] = set()  # regions evaluations were opened in
        self._lock = threading.Lock()

    def get(self, account: Account, service: str, region: str, own: dict[tuple[str, str], Upstream]) -> Upstream:
        """Where `service` in `region` is for an evaluation in `account`: the emulator when it names one."""
        if account.endpoint_url:
            model = loaded(service).model
            return Upstream(account.endpoint_url.rstrip("/"), model.signing_name or model.endpoint_prefix, region)
        key = (service, region)
        with self._lock:
            found = self._shared.get(key) or own.get(key)
            shared = region in self._regions and self._shared_service(service)
        if found is None:
            found = aws_upstream(service, region)
            with self._lock:
                (self._shared if shared else own)[key] = found
        return found

    def prepare(self, account: Account, services: Iterable[str]) -> None:
        """An evaluation in `account` is opened: its region's endpoints of the shared services are shared from now
        on, and those not resolved yet are, in a thread of their own, before its module is likely to ask (one that
        asks first resolves it into the shared ones itself): what is shared is the same whatever it asks."""
        if account.endpoint_url:
            return
        with self._lock:
            self._regions.add(account.region)
            wanted = [s for s in services if (s, account.region) not in self._shared and self._shared_service(s)]
        if wanted:
            name = "stepeval-gateway-endpoints"
            threading.Thread(target=self._resolve, args=(account, wanted), name=name, daemon=True).start()

    def _resolve(self, account: Account, services: list[str]) -> None:
        for service in services:
            with contextlib.suppress(Exception):  # a service with no endpoint there: its requests will say so
                self.get(account, service, account.region, {})

    def shared_count(self) -> int:
        with self._lock:
            return len(self._shared)


EMULATOR_ROUTES = frozenset({"moto-api", "_localstack", "_aws", "latest"})
"""First path segments where emulators serve their own API, not AWS's (moto: /moto-api/ resets, dumps, records and
replays every account; /latest/ its instance metadata; LocalStack: /_localstack/, /_aws/): no request of an
evaluation reaches them, whatever operation it reads as (S3's GetObject on a bucket named moto-api reads as one)."""


def emulator_route(path: str) -> str | None:
    """The emulator's own route `path` reaches (as sent or decoded, in any case), or None."""
    for each in dict.fromkeys((path, unquote(path))):
        first = each.lstrip("/").split("/", 1)[0].lower()
        if first in EMULATOR_ROUTES:
            return first
    return None


def forwarded_headers(service: str, request: RawRequest, identified: Identified) -> dict[str, str]:
    """The request's headers that go upstream: the protocols' own and those its operations' models name."""
    names: set[str] = set()
    prefixes: list[str] = list(FORWARDED_PREFIXES)
    for operation in identified.operations:
        exact, prefixed = headers_of(loaded(service), operation)
        names |= exact
        prefixes += prefixed
    kept = tuple(prefixes)
    return {
        name: value
        for name, value in request.headers.items()
        if name not in RESIGNED
        and name not in HOP_BY_HOP
        and (name in FORWARDED or name in names or name.startswith(kept))
    }
