"""CloudFront validators: a distribution (enabled, origins, HTTPS, default root object, price class). Id = its Id."""

from __future__ import annotations

from typing import Any

from harness.kit.kinds import Kind, Resource, register
from harness.kit.require import Requirement, includes, require


def _fetch_distribution(session: Any, distribution_id: str) -> Resource:
    distribution = session.client("cloudfront").get_distribution(Id=distribution_id)["Distribution"]
    return {**distribution, "Config": distribution["DistributionConfig"]}


DISTRIBUTION = register(Kind("AWS::CloudFront::Distribution", "CloudFront distribution", _fetch_distribution))


def enabled(value: bool = True) -> Requirement:
    return require("enabled", value, lambda d: d["Config"].get("Enabled"))


def origin(domain_name: str) -> Requirement:
    """One origin is `domain_name` (e.g. `BUCKET.s3.us-east-1.amazonaws.com`, or a load balancer's DNS name)."""
    return includes(
        "origins",
        domain_name,
        lambda d: sorted(o["DomainName"] for o in d["Config"]["Origins"].get("Items", [])),
    )


def viewer_protocol(policy: str = "redirect-to-https") -> Requirement:
    """The default behaviour's viewer protocol policy (`redirect-to-https` or `https-only`, not `allow-all`)."""
    return require(
        "viewer protocol policy", policy, lambda d: d["Config"]["DefaultCacheBehavior"].get("ViewerProtocolPolicy")
    )


def default_root_object(name: str = "index.html") -> Requirement:
    return require("default root object", name, lambda d: d["Config"].get("DefaultRootObject") or None)


def price_class(value: str) -> Requirement:
    return require("price class", value, lambda d: d["Config"].get("PriceClass"))
