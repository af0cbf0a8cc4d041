"""CloudFront validators: a distribution (enabled, origins, HTTPS, default root object, price class). Id = its Id."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from harness.kit.kinds import Kind, Resource, register, state_in
from harness.kit.later import later
from harness.kit.require import Requirement, require

_S3_REST = re.compile(
    r"(?P<bucket>.+?)\.s3(?:[.-](?:dualstack\.)?(?P<region>[a-z]{2}(?:-[a-z]+)+-\d))?(?:\.dualstack\.[a-z0-9-]+)?"
    r"\.amazonaws\.com(?:\.cn)?"
)
_S3_WEBSITE = re.compile(r"(?P<bucket>.+?)\.s3-website[.-](?P<region>[a-z]{2}(?:-[a-z]+)+-\d)\.amazonaws\.com(?:\.cn)?")
_BUCKET_NAME = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


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
"""`get_distribution`'s distribution with its config also as `Config`: `{"Id", "DomainName": "d111.cloudfront.net",
"Status", "Config": {"Enabled", "Origins": {"Items": [{"Id", "DomainName", "OriginAccessControlId"}]},
"DefaultCacheBehavior": {"TargetOriginId", "ViewerProtocolPolicy"}, "CacheBehaviors": {"Items": [{"PathPattern",
"TargetOriginId", "ViewerProtocolPolicy"}]}, "DefaultRootObject", "PriceClass"}}`."""


def enabled(value: bool = True) -> Requirement:
    """The distribution is enabled (serving)."""
    return require("enabled", value, lambda d: d["Config"].get("Enabled"))


def _origin(domain_name: str) -> str:
    """An origin as CloudFront reaches it: lower case, no final dot; a bucket's REST endpoint as `s3 BUCKET`
    whichever of its names is used (`B.s3.amazonaws.com`, `B.s3.REGION.amazonaws.com`, `B.s3-REGION...`, the
    dual-stack ones), its website endpoint as `s3-website BUCKET` (`B.s3-website-REGION...`, `B.s3-website.REGION...`):
    a website endpoint is another origin, it serves differently."""
    name = domain_name.strip().lower().rstrip(".")
    rest = _S3_REST.fullmatch(name)
    if rest:
        return f"s3 {rest['bucket']}"
    website = _S3_WEBSITE.fullmatch(name)
    return f"s3-website {website['bucket']}" if website else name


def _wanted_origins(target: Resource | str, website: bool) -> tuple[str, set[str]]:
    """(the origin as a message shows it, the origins `_origin` may read that stand for it)."""
    endpoint = "s3-website" if website else "s3"
    if isinstance(target, Mapping):
        if target.get("DNSName"):
            return str(target["DNSName"]), {_origin(str(target["DNSName"]))}
        bucket = str(target.get("Name") or target.get("Bucket"))
        return bucket, {f"{endpoint} {bucket.lower()}"}
    text = str(target).strip()
    if text.startswith("arn:") and ":s3:::" in text:
        bucket = text.split(":::", 1)[1].split("/", 1)[0]
        return bucket, {f"{endpoint} {bucket.lower()}"}
    read = _origin(text)
    if read.startswith(("s3 ", "s3-website ")):
        return text, {f"{endpoint} {read.split(' ', 1)[1]}"} if website else {read}
    bucket_named = {f"{endpoint} {read}"} if _BUCKET_NAME.fullmatch(read) else set()
    return text, ({read} | bucket_named) if not website else bucket_named


def _behaviour(distribution: Resource, path_pattern: str | None) -> Mapping[str, Any] | None:
    """The cache behaviour that serves viewers: the default one, or the one for `path_pattern` (`/api/*`)."""
    config = distribution["Config"]
    if path_pattern is None:
        return config.get("DefaultCacheBehavior")
    items = (config.get("CacheBehaviors") or {}).get("Items") or []
    return next((b for b in items if b.get("PathPattern") == path_pattern), None)


def _behaviour_name(path_pattern: str | None) -> str:
    return "default behaviour" if path_pattern is None else f"behaviour for {path_pattern}"


def _serving_origin(distribution: Resource, path_pattern: str | None) -> Mapping[str, Any] | None:
    """The origin the behaviour (default, or for `path_pattern`) sends viewers' requests to, by its
    `TargetOriginId`: the origin that serves them, whatever other origins the distribution lists."""
    behaviour = _behaviour(distribution, path_pattern)
    if behaviour is None:
        return None
    origins = distribution["Config"]["Origins"].get("Items") or []
    return next((o for o in origins if o.get("Id") == behaviour.get("TargetOriginId")), None)


@later
def origin(domain_name: Resource | str, *, website: bool = False, path_pattern: str | None = None) -> Requirement:
    """Viewers are served from `domain_name`: the origin the default cache behaviour targets (or the behaviour for
    `path_pattern`, if given) is a bucket (a described bucket, its name or ARN, or any of its REST endpoints:
    `B.s3.amazonaws.com`, `B.s3.REGION.amazonaws.com`, `B.s3-REGION.amazonaws.com`), a load balancer's DNS name
    (or a described load balancer), any domain in any case, with or without a final dot. Another origin listed
    beside it serves nothing by the default behaviour, so it does not count. With `website=True` a bucket's website
    endpoint (`B.s3-website-REGION.amazonaws.com`) is wanted instead of its REST endpoints: they serve
    differently, so neither stands for the other."""
    shown, wanted = _wanted_origins(domain_name, website)

    def actual(distribution: Resource) -> str | None:
        serving = _serving_origin(distribution, path_pattern)
        return str(serving["DomainName"]) if serving else None

    return require(
        f"origin of the {_behaviour_name(path_pattern)}",
        shown,
        actual,
        compare=lambda found, _: found is not None and _origin(found) in wanted,
    )


VIEWER_PROTOCOLS = ("allow-all", "https-only", "redirect-to-https")
HTTPS_REQUIRED = ("https-only", "redirect-to-https")
"""The viewer protocol policies under which no viewer gets content over plain HTTP."""


def viewer_protocol(policy: str | Iterable[str] = HTTPS_REQUIRED, *, path_pattern: str | None = None) -> Requirement:
    """The default behaviour's viewer protocol policy (or the behaviour's for `path_pattern`, if given) is
    `policy`, or one of several: by default `HTTPS_REQUIRED` (`https-only` or `redirect-to-https`: no viewer is
    served over HTTP); give one (`"redirect-to-https"`) where the lab asks for that one."""
    accepted = frozenset([policy] if isinstance(policy, str) else policy)
    unknown = accepted - set(VIEWER_PROTOCOLS)
    if unknown or not accepted:
        raise ValueError(f"viewer_protocol: {sorted(unknown)} is not one of {sorted(VIEWER_PROTOCOLS)}")
    shown = " or ".join(sorted(accepted))
    return require(
        "viewer protocol policy" if path_pattern is None else f"viewer protocol policy for {path_pattern}",
        shown,
        lambda d: (_behaviour(d, path_pattern) or {}).get("ViewerProtocolPolicy"),
        compare=lambda actual, _: actual in accepted,
    )


def default_root_object(name: str = "index.html") -> Requirement:
    """The object served for the root URL, e.g. `index.html` (as AWS takes it: no leading `/`)."""
    return require("default root object", name, lambda d: d["Config"].get("DefaultRootObject") or None)


def price_class(value: str) -> Requirement:
    """The price class, e.g. `PriceClass_100`."""
    return require("price class", value, lambda d: d["Config"].get("PriceClass"))


def _fetch_origin_access_control(session: Any, control_id: str) -> Resource:
    control = session.client("cloudfront").get_origin_access_control(Id=control_id)["OriginAccessControl"]
    return {"Id": control["Id"], **control["OriginAccessControlConfig"]}


ORIGIN_ACCESS_CONTROL = register(
    Kind("AWS::CloudFront::OriginAccessControl", "origin access control", _fetch_origin_access_control)
)
"""`{"Id", "Name", "SigningProtocol": "sigv4", "SigningBehavior": "always", "OriginAccessControlOriginType": "s3"}`"""


def signs_requests(behavior: str = "always", *, origin_type: str = "s3") -> Requirement:
    """An origin access control that signs requests (`always`, `no-override` or `never`) with SigV4, for origins
    of `origin_type` (`s3`, `mediastore`, `lambda`...)."""
    wanted = f"{behavior} with sigv4 for {origin_type}"
    return require(
        "signing",
        wanted,
        lambda c: (
            f"{c.get('SigningBehavior')} with {c.get('SigningProtocol')} for {c.get('OriginAccessControlOriginType')}"
        ),
    )


def _control_id(control: Resource | str | None) -> str | None:
    return control.get("Id") if isinstance(control, Mapping) else control


@later
def reads_origin_through(
    control: Resource | str | None, target: Resource | str | None = None, *, path_pattern: str | None = None
) -> Requirement:
    """The origin that serves viewers (the default behaviour's, or the behaviour's for `path_pattern`) is reached
    through the origin access control `control` (a described one or its id), and is `target` (as `origin` reads
    it), if given: so the bucket's policy can admit this distribution alone. Another origin through the control
    that no behaviour serves from does not count."""
    control_id = _control_id(control)
    wanted = _wanted_origins(target, False)[1] if target is not None else None

    def actual(distribution: Resource) -> str:
        serving = _serving_origin(distribution, path_pattern)
        if serving is None:
            return f"no origin for the {_behaviour_name(path_pattern)}"
        return f"{serving['DomainName']} through {serving.get('OriginAccessControlId') or 'no origin access control'}"

    def same(found: str, _: str) -> bool:
        domain, _through, used = found.partition(" through ")
        return control_id is not None and used == control_id and (wanted is None or _origin(domain) in wanted)

    shown = f"{_wanted_origins(target, False)[0]} through {control_id}" if target is not None else f"{control_id}"
    return require("origin access control", shown, actual, compare=same)
