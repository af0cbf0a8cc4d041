"""CloudFront origins, viewer protocols and origin access controls judged by meaning, on moto."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.kit import cloudfront
from tests.kit.conftest import described, miss, passes, unique
from tests.kit.test_containers_edge import distribution_config

REGION = "us-east-1"


def distribution(aws_session, origin: str, **origin_settings) -> dict:
    config = distribution_config(origin)
    config["Origins"]["Items"][0].update(origin_settings)
    made = aws_session.client("cloudfront").create_distribution(DistributionConfig=config)["Distribution"]["Id"]
    return described(cloudfront.DISTRIBUTION, aws_session, made)


def with_policy(resource: dict, policy: str) -> dict:
    config = {**resource["Config"], "DefaultCacheBehavior": {"ViewerProtocolPolicy": policy}}
    return {**resource, "Config": config}


@pytest.fixture
def site(aws_session) -> dict:
    return distribution(aws_session, f"media.s3.{REGION}.amazonaws.com")


@pytest.mark.parametrize(
    ("actual", "required", "holds"),
    [
        ("https-only", cloudfront.HTTPS_REQUIRED, True),
        ("redirect-to-https", cloudfront.HTTPS_REQUIRED, True),
        ("allow-all", cloudfront.HTTPS_REQUIRED, False),
        ("https-only", "redirect-to-https", False),
        ("redirect-to-https", "redirect-to-https", True),
        ("allow-all", ["allow-all", "redirect-to-https"], True),
    ],
)
def test_viewer_protocol_is_a_set_of_policies(site: dict, actual: str, required, holds: bool) -> None:
    assert passes(cloudfront.viewer_protocol(required), with_policy(site, actual)) is holds


def test_https_required_by_default_and_the_message_says_which_are_accepted(site: dict) -> None:
    assert passes(cloudfront.viewer_protocol(), with_policy(site, "https-only"))
    assert miss(cloudfront.viewer_protocol(), cloudfront.DISTRIBUTION, site["Id"], site) == (
        f"CloudFront distribution {site['Id']}: viewer protocol policy should be https-only or redirect-to-https, "
        "but is allow-all."
    )
    with pytest.raises(ValueError, match="https-always"):
        cloudfront.viewer_protocol("https-always")


BUCKET_NAMES = st.from_regex(r"[a-z0-9][a-z0-9-]{2,20}[a-z0-9]", fullmatch=True)


def endpoints(bucket: str) -> list[str]:
    """Every name of a bucket's REST endpoint."""
    return [
        f"{bucket}.s3.amazonaws.com",
        f"{bucket}.s3.{REGION}.amazonaws.com",
        f"{bucket}.s3-{REGION}.amazonaws.com",
        f"{bucket}.s3.dualstack.{REGION}.amazonaws.com",
    ]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bucket=BUCKET_NAMES, data=st.data())
def test_an_origin_named_by_any_name_of_the_bucket(site: dict, bucket: str, data: st.DataObject) -> None:
    origin = data.draw(st.sampled_from(endpoints(bucket)))
    judged = {**site, "Config": {**site["Config"], "Origins": {"Items": [{"DomainName": origin}]}}}
    given_as = data.draw(
        st.sampled_from([bucket, f"arn:aws:s3:::{bucket}", {"Name": bucket}, *endpoints(bucket), origin.upper() + "."])
    )
    assert passes(cloudfront.origin(given_as), judged), (given_as, origin)
    assert not passes(cloudfront.origin(f"{bucket}x"), judged)
    assert not passes(cloudfront.origin(given_as, website=True), judged)  # a REST endpoint is no website
    website = {**judged, "Config": {**judged["Config"], "Origins": {"Items": [
        {"DomainName": f"{bucket}.s3-website-{REGION}.amazonaws.com"}]}}}  # fmt: skip
    assert not passes(cloudfront.origin(given_as), website)
    assert passes(cloudfront.origin(bucket, website=True), website)
    assert passes(cloudfront.origin(f"{bucket}.s3-website.{REGION}.amazonaws.com", website=True), website)


def test_a_load_balancer_or_any_domain_is_an_origin_by_its_name(aws_session) -> None:
    found = distribution(aws_session, "web-123.us-east-1.elb.amazonaws.com")
    assert passes(cloudfront.origin("WEB-123.us-east-1.elb.amazonaws.com."), found)
    assert passes(cloudfront.origin({"DNSName": "web-123.us-east-1.elb.amazonaws.com"}), found)
    assert miss(cloudfront.origin("media"), cloudfront.DISTRIBUTION, found["Id"], found) == (
        f"CloudFront distribution {found['Id']}: origins should be media, but is web-123.us-east-1.elb.amazonaws.com."
    )


def test_origin_access_control(aws_session) -> None:
    client = aws_session.client("cloudfront")
    control = client.create_origin_access_control(
        OriginAccessControlConfig={"Name": unique("oac"), "SigningProtocol": "sigv4", "SigningBehavior": "always",
                                   "OriginAccessControlOriginType": "s3"}
    )["OriginAccessControl"]["Id"]  # fmt: skip
    described_control = described(cloudfront.ORIGIN_ACCESS_CONTROL, aws_session, control)
    assert passes(cloudfront.signs_requests(), described_control)
    assert miss(cloudfront.signs_requests("no-override"), cloudfront.ORIGIN_ACCESS_CONTROL, control, described_control)
    bucket = unique("media")
    plain = distribution(aws_session, f"{bucket}.s3.{REGION}.amazonaws.com", OriginAccessControlId=control)
    assert "OriginAccessControlId" not in plain["Config"]["Origins"]["Items"][0]  # moto 5.2 drops it: set it here
    origins = {"Items": [{**plain["Config"]["Origins"]["Items"][0], "OriginAccessControlId": control}]}
    through = {**plain, "Config": {**plain["Config"], "Origins": origins}}
    for given_as in (control, described_control):
        assert passes(cloudfront.reads_origin_through(given_as), through)
        assert passes(cloudfront.reads_origin_through(given_as, bucket), through)
        assert not passes(cloudfront.reads_origin_through(given_as, f"{bucket}-other"), through)
    assert miss(cloudfront.reads_origin_through(control, bucket), cloudfront.DISTRIBUTION, plain["Id"], plain) == (
        f"CloudFront distribution {plain['Id']}: origin access control should be {bucket} through {control}, but is "
        f"{bucket}.s3.{REGION}.amazonaws.com through no origin access control."
    )
