"""A Kind: a CloudFormation resource type, what to call it in a sentence, and how to describe one by id.

Kit modules `register` their kinds in `KINDS` (CloudFormation type -> Kind); `kit.catalog` lists them for
`stepeval new`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from harness.kit.aws import service_for_type

Resource = dict[str, Any]
"""A resource as the describe/get calls return it, plus whatever the Kind's fetch adds (e.g. VPC attributes)."""


class LazyResource(dict[str, Any]):
    """A described resource whose costlier attributes are fetched on first use (one call each, then kept).

    `vpc["EnableDnsHostnames"]` makes the DescribeVpcAttribute call only if some requirement reads it.
    """

    def __init__(self, described: Mapping[str, Any], loaders: Mapping[str, Callable[[], Any]]) -> None:
        super().__init__(described)
        self._loaders = dict(loaders)

    def __missing__(self, key: str) -> Any:
        if key not in self._loaders:
            raise KeyError(key)
        value = self[key] = self._loaders[key]()
        return value

    def get(self, key: str, default: Any = None) -> Any:
        """Like dict.get, loading a lazy attribute first (dict.get alone would not call __missing__)."""
        return self[key] if key in self or key in self._loaders else default

    def complete(self) -> dict[str, Any]:
        """Every attribute, the lazy ones loaded: the whole resource as a plain dict."""
        return {**{key: self[key] for key in self._loaders}, **self}


Fetch = Callable[[Any, str], Resource | None]
"""(session, id) -> the resource, None when the answer is empty; NotFound errors may be raised."""


REGIONLESS_SERVICES = frozenset({"iam", "cloudfront", "route53", "organizations"})
"""Services whose resources live in no region: the lab's region does not apply to them."""


def outside(kind: Kind, resource_id: str, region: str | None, home: str | None, allowed: Collection[str]) -> str | None:
    """The region a resource of `kind` is in (`region`, else the one its ARN or URL names) when that is neither
    `home` (the lab's region: the evaluation's) nor one of `allowed` (`"*"`: any); else None. A lab's platform
    gives the learner one region: a regional resource built in another is a mistake, unless the spec allows it."""
    where = region or region_of(resource_id)
    if not kind.regional or home is None or where is None or where == home or "*" in allowed or where in allowed:
        return None
    return where


@dataclass(frozen=True)
class Kind:
    """How the kit finds and names one type of resource.

    `naming` may use `{noun}`, `{id}` and `{name}` (an ARN's or URL's last part: `SQS queue orders` rather than
    the whole queue URL). `service` is botocore's service name, by default the type's (`AWS::SQS::Queue` -> sqs):
    it says which NotFound codes count and whether a NotFound is retried. `settling(resource)` names the
    transitional state a resource is in while AWS is still creating or changing it (`"state pending"`), None once
    it has settled: such a resource answers `pending`, never `pass`, and `fail` only for what else is wrong;
    `retry_after_s` is when to ask again. `title(resource)` is the name a learner gave the described resource
    where its id is not that name (a security group's GroupName beside its sg- id, a secret's Name without the
    random suffix its ARN carries): a sentence names it by that.
    `short(id)` is `{name}` for a kind whose id is compound (`www.example.com|Z123|A` -> `www.example.com A`);
    by default an ARN's or URL's last part. `made_with` names what AWS makes along with another resource, with no
    call of its own (a VPC's main route table): `(TYPE, implied)` pairs, `implied(session, id)` the ids of this
    kind that the resource of TYPE `id` came with, so an event of TYPE makes them candidates too.
    """

    type: str
    noun: str
    fetch: Fetch
    naming: str = "{noun} {id}"
    service: str | None = None
    settling: Callable[[Resource], str | None] | None = None
    retry_after_s: int = 30
    title: Callable[[Resource], str | None] | None = None
    short: Callable[[str], str] | None = None
    made_with: tuple[tuple[str, Callable[[Any, str], list[str]]], ...] = ()

    @property
    def service_name(self) -> str:
        """botocore's name of the service that holds this kind."""
        return self.service or service_for_type(self.type)

    @property
    def regional(self) -> bool:
        """Whether a resource of this kind lives in a region (IAM, CloudFront and Route 53 ones live in none; an
        S3 bucket's name is global, but the bucket is in a region)."""
        return self.service_name not in REGIONLESS_SERVICES

    def describe(self, resource_id: str, resource: Resource | None = None) -> str:
        """`VPC vpc-0abc`: how a sentence names one; given the described resource, by its `title` where the kind
        has one (`security group db (sg-0abc)`, `secret orders/db-password`)."""
        title = self.title(resource) if self.title is not None and resource is not None else None
        if title and title != resource_id:
            return f"{self.noun} {title}" if "{id}" not in self.naming else f"{self.noun} {title} ({resource_id})"
        name = self.short(resource_id) if self.short is not None else short_name(resource_id)
        return self.naming.format(noun=self.noun, id=resource_id, name=name)

    def fetch_in(self, session: Any, resource_id: str, region: str | None = None) -> Resource | None:
        """`fetch` in the resource's region: `region` if given, else the one its ARN or URL names, else the
        session's."""
        return self.fetch(in_region(session, region or region_of(resource_id)), resource_id)


_ARN = re.compile(r"arn:(?P<partition>[^:]+):(?P<service>[^:]*):(?P<region>[^:]*):(?P<account>[^:]*):(?P<resource>.+)")
_SERVICE_URL = re.compile(r"https?://[a-z0-9-]+\.(?P<region>[a-z]{2}(?:-[a-z]+)+-\d)\.amazonaws\.com(?:\.cn)?/")


def region_of(resource_id: str) -> str | None:
    """The region an ARN (`arn:aws:sns:eu-west-1:...`) or a service URL (`https://sqs.eu-west-1.amazonaws.com/...`)
    names; None for a plain id or a global ARN (IAM, S3)."""
    arn = _ARN.fullmatch(resource_id)
    if arn:
        return arn["region"] or None
    url = _SERVICE_URL.match(resource_id)
    return url["region"] if url else None


def short_name(resource_id: str) -> str:
    """An ARN's or URL's last part (`arn:aws:sns:us-east-1:123:alerts` -> alerts, a queue URL -> the queue's name,
    `arn:aws:iam::123:role/service/api` -> api); any other id as it is."""
    arn = _ARN.fullmatch(resource_id)
    if arn:
        return re.split(r"[/:]", arn["resource"])[-1] or resource_id
    if resource_id.startswith(("http://", "https://")):
        return resource_id.rstrip("/").rsplit("/", 1)[-1]
    return resource_id


class RegionalSession:
    """A session whose clients default to another region than its own (everything else is the session's)."""

    def __init__(self, session: Any, region: str) -> None:
        self._session = session
        self.region_name = region

    def client(self, service_name: str, region_name: str | None = None, **kwargs: Any) -> Any:
        """A client of the wrapped session, in this region unless one is given."""
        return self._session.client(service_name, region_name=region_name or self.region_name, **kwargs)

    def resource(self, service_name: str, region_name: str | None = None, **kwargs: Any) -> Any:
        """A resource of the wrapped session, in this region unless one is given."""
        return self._session.resource(service_name, region_name=region_name or self.region_name, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def in_region(session: Any, region: str | None) -> Any:
    """`session` itself when `region` is None or its own; else a RegionalSession for `region`."""
    if region is None or region == getattr(session, "region_name", None):
        return session
    return RegionalSession(session, region)


KINDS: dict[str, Kind] = {}
"""Every kit Kind by CloudFormation type, filled as the kit's service modules are imported (see `kit.catalog`)."""


def register(kind: Kind) -> Kind:
    """Index `kind` under its CloudFormation type and return it; one Kind per type."""
    held = KINDS.setdefault(kind.type, kind)
    if held is not kind:
        raise ValueError(f"{kind.type} already has a Kind ({held.noun})")
    return kind


def state_in(key: str, states: Collection[str], *, label: str = "state") -> Callable[[Resource], str | None]:
    """A `settling` that reads `resource[key]` (a dotted path: `State.Code`): `"LABEL VALUE"` when it is one of
    `states`, else None."""

    def settling(resource: Resource) -> str | None:
        value: Any = resource
        for part in key.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        return f"{label} {value}" if value in states else None

    settling.__doc__ = f"{key} is {' or '.join(sorted(states))}"
    return settling


def first(items: list[Resource]) -> Resource | None:
    """The one resource a describe-by-id call returned, or None (some services answer an unknown id with [])."""
    return items[0] if items else None


def id_of(resource_or_id: Resource | str | None, key: str) -> str | None:
    """An id given directly, or read from a described resource under `key` (None stays None)."""
    if resource_or_id is None or isinstance(resource_or_id, str):
        return resource_or_id
    return resource_or_id.get(key)
