"""CloudFront validators: a distribution (enabled, origins, HTTPS, default root object, price class). Id = its Id."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from harness.kit.kinds import Kind, Resource, register, state_in
from harness.kit.later import later
from harness.kit.require import Requirement, require

_S3_REST = re.compile(
    r"(?P<bucket>.+?)\.s3(?:[.-](?:dualstack\.)?(?P<region>[a-z]{2}(?:-[a-z]+)+-\d))?(?:\.dualstack\.[a-z0-9-]+)?"
    r"\.amazonaws\.com(?:\.cn)?"
)


def _fetch_distribution(session: Any, distribution_id: str) -> Resource:
    distribution = session.client("cloudfront").get_distribution(Id=distribution_id)["Distribution"]
    return {**distribution, "Config": distribution["DistributionConfig"]}


DISTRIBUTION = register(
    Kind(
        "AWS::CloudFront::Distribution",
        "CloudFront distribution",
        _fetch_distribution,
        settling=state_in("Status", {"InProgress"}, label="status"),
        retry_after_s=60,
    )
)


def enabled(value: bool = True) -> Requirement:
    """The distribution is enabled (serving)."""
    return require("enabled", value, lambda d: d["Config"].get("Enabled"))


def _origin(domain_name: str) -> str:
    """An origin as CloudFront reaches it: lower case, no final dot; a bucket's REST endpoint as `s3 BUCKET`
    whichever of its names is used (`B.s3.amazonaws.com`, `B.s3.REGION.amazonaws.com`, `B.s3-REGION...`, the
    dual-stack ones). A website endpoint (`B.s3-website-REGION...`) is another origin: it serves differently."""
    name = domain_name.strip().lower().rstrip(".")
    rest = _S3_REST.fullmatch(name)
    return f"s3 {rest['bucket']}" if rest else name


@later
def origin(domain_name: Resource | str) -> Requirement:
    """One origin is `domain_name`: a bucket's REST endpoint under any of its names (or a described bucket), a
    load balancer's DNS name (or a described load balancer), any domain in any case."""
    if isinstance(domain_name, Mapping):
        given = domain_name.get("DNSName") or f"{domain_name.get('Name')}.s3.amazonaws.com"
    else:
        given = domain_name
    wanted = _origin(str(given))
    return require(
        "origins",
        given,
        lambda d: sorted(o["DomainName"] for o in d["Config"]["Origins"].get("Items", [])),
        compare=lambda actual, _: wanted in map(_origin, actual),
    )


def viewer_protocol(policy: str = "redirect-to-https") -> Requirement:
    """The default behaviour's viewer protocol policy (`redirect-to-https` or `https-only`, not `allow-all`)."""
    return require(
        "viewer protocol policy", policy, lambda d: d["Config"]["DefaultCacheBehavior"].get("ViewerProtocolPolicy")
    )


def default_root_object(name: str = "index.html") -> Requirement:
    """The object served for the root URL, e.g. `index.html` (as AWS takes it: no leading `/`)."""
    return require("default root object", name, lambda d: d["Config"].get("DefaultRootObject") or None)


def price_class(value: str) -> Requirement:
    """The price class, e.g. `PriceClass_100`."""
    return require("price class", value, lambda d: d["Config"].get("PriceClass"))
