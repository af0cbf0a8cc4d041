"""Where an allowed request goes and what of it goes: the endpoint and signing scope of a (service, region), and the
request's headers that are forwarded (those botocore's protocols send and those the operation's model names).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote

import botocore.loaders
import botocore.session
import urllib3
from botocore import UNSIGNED
from botocore.config import Config

from harness.core.account import Account
from harness.sandbox.operations import Identified, loaded
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
UPSTREAMS = 256  # (service, region) endpoints remembered


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


@lru_cache(maxsize=UPSTREAMS)
def aws_upstream(service: str, region: str) -> Upstream:
    """The public endpoint of `service` in `region`, as botocore resolves it, and its signing scope.

    S3 goes path-style to its regional endpoint. A global endpoint (IAM, Route 53, CloudFront...) has no region
    in its host and signs in its partition's home region. Resolved by a client made on a loader of its own, dropped
    after: only the endpoint is kept.
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


def upstream_for(account: Account, service: str, region: str) -> Upstream:
    """The emulator's endpoint when the account names one; the service's AWS endpoint otherwise."""
    if account.endpoint_url:
        model = loaded(service).model
        return Upstream(account.endpoint_url.rstrip("/"), model.signing_name or model.endpoint_prefix, region)
    return aws_upstream(service, region)


def forwarded_headers(service: str, request: RawRequest, identified: Identified) -> dict[str, str]:
    """The request's headers that go upstream: the protocols' own and those its operations' models name."""
    names: set[str] = set()
    prefixes: list[str] = list(FORWARDED_PREFIXES)
    for operation in identified.operations:
        exact, prefixed = modelled_headers(service, operation)
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


def modelled_headers(service: str, operation: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The header names, and header-name prefixes, `operation`'s input takes (kept with the model)."""
    entry = loaded(service)
    key = f"headers:{operation}"
    with entry.lock:
        found = entry.derived.get(key)
        if found is None:
            shape = entry.model.operation_model(operation).input_shape
            members = shape.members.values() if shape is not None else []
            located = [(m.serialization.get("location"), str(m.serialization.get("name", "")).lower()) for m in members]
            exact = frozenset(name for where, name in located if where == "header" and name)
            prefixed = tuple(name for where, name in located if where == "headers" and name)
            found = entry.derived[key] = (exact, prefixed)
    return found  # type: ignore[return-value]
