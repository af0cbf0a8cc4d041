"""CloudFront origins, viewer protocols and origin access controls judged by meaning, on moto."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.kit import cloudfront, ec2, route53
from tests.kit.conftest import described, miss, passes, unique
from tests.kit.test_containers_edge import distribution_config

REGION = "us-east-1"


def distribution(aws_session, origin: str, **origin_settings) -> dict:
    config = distribution_config(origin)
    config["Origins"]["Items"][0].update(origin_settings)
    made = aws_session.client("cloudfront").create_distribution(DistributionConfig=config)["Distribution"]["Id"]
    return described(cloudfront.DISTRIBUTION, aws_session, made)


def with_policy(resource: dict, policy: str) -> dict:
    behaviour = {**resource["Config"]["DefaultCacheBehavior"], "ViewerProtocolPolicy": policy}
    return {**resource, "Config": {**resource["Config"], "DefaultCacheBehavior": behaviour}}


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
    judged = {**site, "Config": {**site["Config"], "Origins": {"Items": [{"Id": "s3", "DomainName": origin}]}}}
    given_as = data.draw(
        st.sampled_from([bucket, f"arn:aws:s3:::{bucket}", {"Name": bucket}, *endpoints(bucket), origin.upper() + "."])
    )
    assert passes(cloudfront.origin(given_as), judged), (given_as, origin)
    assert not passes(cloudfront.origin(f"{bucket}x"), judged)
    assert not passes(cloudfront.origin(given_as, website=True), judged)  # a REST endpoint is no website
    website = {**judged, "Config": {**judged["Config"], "Origins": {"Items": [
        {"Id": "s3", "DomainName": f"{bucket}.s3-website-{REGION}.amazonaws.com"}]}}}  # fmt: skip
    assert not passes(cloudfront.origin(given_as), website)
    assert passes(cloudfront.origin(bucket, website=True), website)
    assert passes(cloudfront.origin(f"{bucket}.s3-website.{REGION}.amazonaws.com", website=True), website)


def test_a_load_balancer_or_any_domain_is_an_origin_by_its_name(aws_session) -> None:
    found = distribution(aws_session, "web-123.us-east-1.elb.amazonaws.com")
    assert passes(cloudfront.origin("WEB-123.us-east-1.elb.amazonaws.com."), found)
    assert passes(cloudfront.origin({"DNSName": "web-123.us-east-1.elb.amazonaws.com"}), found)
    assert miss(cloudfront.origin("media"), cloudfront.DISTRIBUTION, found["Id"], found) == (
        f"CloudFront distribution {found['Id']}: origin of the default behaviour should be media, but is "
        "web-123.us-east-1.elb.amazonaws.com."
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


def test_the_origin_that_serves_is_the_default_behaviours(aws_session) -> None:
    """A second origin through the control does not make the distribution serve from it: the default behaviour's
    TargetOriginId names the origin viewers get (and the viewer protocol and control judged are that behaviour's)."""
    bucket = unique("site")
    rest = {"Id": "rest", "DomainName": f"{bucket}.s3.{REGION}.amazonaws.com",
            "S3OriginConfig": {"OriginAccessIdentity": ""}}  # fmt: skip
    custom = {"HTTPPort": 80, "HTTPSPort": 443, "OriginProtocolPolicy": "http-only"}
    website = {
        "Id": "website",
        "DomainName": f"{bucket}.s3-website-{REGION}.amazonaws.com",
        "CustomOriginConfig": custom,
    }
    api = {"PathPattern": "/api/*", "TargetOriginId": "rest", "ViewerProtocolPolicy": "https-only",
           "CachePolicyId": "658327ea-f89d-4fab-a63d-7e88639e58f6"}  # fmt: skip
    config = distribution_config(bucket, Origins={"Quantity": 2, "Items": [rest, website]})
    config["DefaultCacheBehavior"].update(TargetOriginId="website", ViewerProtocolPolicy="redirect-to-https")
    config["CacheBehaviors"] = {"Quantity": 1, "Items": [api]}
    made = aws_session.client("cloudfront").create_distribution(DistributionConfig=config)["Distribution"]["Id"]
    found = described(cloudfront.DISTRIBUTION, aws_session, made)
    control = "E2OAC"
    items = [
        {**o, "OriginAccessControlId": control} if o["Id"] == "rest" else o for o in found["Config"]["Origins"]["Items"]
    ]
    found = {**found, "Config": {**found["Config"], "Origins": {"Items": items}}}
    assert miss(cloudfront.origin(bucket), cloudfront.DISTRIBUTION, made, found) == (
        f"CloudFront distribution {made}: origin of the default behaviour should be {bucket}, but is "
        f"{bucket}.s3-website-{REGION}.amazonaws.com."
    )
    assert passes(cloudfront.origin(bucket, website=True), found)
    assert not passes(cloudfront.reads_origin_through(control, bucket), found)
    assert not passes(cloudfront.reads_origin_through(control), found)
    assert passes(cloudfront.origin(bucket, path_pattern="/api/*"), found)
    assert passes(cloudfront.reads_origin_through(control, bucket, path_pattern="/api/*"), found)
    assert passes(cloudfront.viewer_protocol("https-only", path_pattern="/api/*"), found)
    assert not passes(cloudfront.viewer_protocol("https-only"), found)
    assert not passes(cloudfront.origin(bucket, path_pattern="/img/*"), found)
    swapped = {**found, "Config": {**found["Config"], "DefaultCacheBehavior": {
        **found["Config"]["DefaultCacheBehavior"], "TargetOriginId": "rest"}}}  # fmt: skip
    assert passes(cloudfront.origin(bucket), swapped)
    assert passes(cloudfront.reads_origin_through(control, bucket), swapped)


# --- a gateway VPC endpoint ----------------------------------------------------------------------------------


def test_a_gateway_endpoint_for_s3_on_the_subnets_route_table(aws_session) -> None:
    client = aws_session.client("ec2")
    vpc = client.create_vpc(CidrBlock="10.9.0.0/16")["Vpc"]["VpcId"]
    table, other = (client.create_route_table(VpcId=vpc)["RouteTable"]["RouteTableId"] for _ in range(2))
    endpoint_id = client.create_vpc_endpoint(
        VpcId=vpc, ServiceName=f"com.amazonaws.{REGION}.s3", VpcEndpointType="Gateway", RouteTableIds=[table]
    )["VpcEndpoint"]["VpcEndpointId"]
    endpoint = described(ec2.VPC_ENDPOINT, aws_session, endpoint_id)
    for requirement in (
        ec2.endpoint_type("Gateway"),
        ec2.endpoint_type("gateway"),
        ec2.endpoint_service("s3"),
        ec2.endpoint_service(f"com.amazonaws.{REGION}.s3"),
        ec2.in_vpc(vpc),
        ec2.endpoint_in_route_tables([table]),
        ec2.endpoint_in_route_tables([described(ec2.ROUTE_TABLE, aws_session, table)]),
    ):
        assert passes(requirement, endpoint), requirement.check
    assert not passes(ec2.endpoint_service("dynamodb"), endpoint)
    assert not passes(ec2.endpoint_service("com.amazonaws.eu-west-1.s3"), endpoint)
    assert not passes(ec2.endpoint_type("Interface"), endpoint)
    assert miss(ec2.endpoint_in_route_tables([table, other]), ec2.VPC_ENDPOINT, endpoint_id, endpoint) == (
        f"VPC endpoint {endpoint_id}: it routes for {table}; it should route for {other} too."
    )
    assert endpoint["Policy"] == endpoint["PolicyDocument"] and "Statement" in endpoint["Policy"]  # what policies read


# --- a Route 53 record set -----------------------------------------------------------------------------------


def change(aws_session, zone: str, record: dict) -> None:
    aws_session.client("route53").change_resource_record_sets(
        HostedZoneId=zone, ChangeBatch={"Changes": [{"Action": "UPSERT", "ResourceRecordSet": record}]}
    )


@pytest.fixture
def zone(aws_session) -> str:
    made = aws_session.client("route53").create_hosted_zone(Name="lab.example.com", CallerReference=unique("z"))
    return made["HostedZone"]["Id"].removeprefix("/hostedzone/")


def test_an_alias_record_to_a_distribution(aws_session, zone: str) -> None:
    cdn = distribution(aws_session, "media.s3.amazonaws.com")
    alias = {"HostedZoneId": "Z2FDTNDATAQYW2", "DNSName": f"{cdn['DomainName']}.", "EvaluateTargetHealth": False}
    change(aws_session, zone, {"Name": "www.lab.example.com", "Type": "A", "AliasTarget": alias})
    for record_id in (f"www.lab.example.com|{zone}|A", "WWW.lab.example.com.", f"www.lab.example.com.|{zone}|A"):
        record = described(route53.RECORD_SET, aws_session, record_id)
        for requirement in (
            route53.alias_to(cdn),
            route53.alias_to(cdn["DomainName"].upper() + "."),
            route53.record_type("a"),
            route53.named("www.lab.example.com."),
            route53.named("WWW.LAB.EXAMPLE.COM"),
        ):
            assert passes(requirement, record), (record_id, requirement.check)
    record = described(route53.RECORD_SET, aws_session, f"www.lab.example.com|{zone}|A")
    assert route53.RECORD_SET.describe(f"www.lab.example.com.|{zone}|A") == "DNS record www.lab.example.com A"
    record_id = f"www.lab.example.com|{zone}|A"
    assert miss(route53.alias_to("d999.cloudfront.net."), route53.RECORD_SET, record_id, record) == (
        f"DNS record www.lab.example.com A: alias target should be d999.cloudfront.net, but is {cdn['DomainName']}."
    )


def test_a_record_typed_in_upper_case_is_found_by_any_spelling(aws_session, zone: str) -> None:
    """Route 53 keeps names in lower case; an emulator that keeps the learner's case sorts them apart."""
    cdn = distribution(aws_session, "media.s3.amazonaws.com")
    alias = {"HostedZoneId": "Z2FDTNDATAQYW2", "DNSName": cdn["DomainName"], "EvaluateTargetHealth": False}
    change(aws_session, zone, {"Name": "CDN.lab.example.com", "Type": "A", "AliasTarget": alias})
    for record_id in (f"CDN.lab.example.com|{zone}|A", f"cdn.lab.example.com.|{zone}|A", "cdn.lab.example.com"):
        record = described(route53.RECORD_SET, aws_session, record_id)
        assert passes(route53.named("cdn.lab.example.com"), record) and passes(route53.alias_to(cdn), record)


def test_plain_records_and_names_never_doubled_dots(aws_session, zone: str) -> None:
    change(aws_session, zone, {"Name": "api.lab.example.com.", "Type": "AAAA", "TTL": 60,
                               "ResourceRecords": [{"Value": "2001:db8::1"}]})  # fmt: skip
    record = described(route53.RECORD_SET, aws_session, "api.lab.example.com")
    assert record["Type"] == "AAAA" and record["HostedZoneId"] == zone
    assert passes(route53.values("2001:DB8::1"), record)
    assert miss(route53.named("web.lab.example.com."), route53.RECORD_SET, "api.lab.example.com", record) == (
        "DNS record api.lab.example.com: name should be web.lab.example.com, but is api.lab.example.com."
    )
    found_zone = described(route53.HOSTED_ZONE, aws_session, zone)
    assert miss(route53.domain("example.com."), route53.HOSTED_ZONE, zone, found_zone) == (
        f"Hosted zone {zone}: domain should be example.com, but is lab.example.com."
    )
    assert route53.RECORD_SET.fetch(aws_session, f"nothere.lab.example.com|{zone}|A") is None


LABELS = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)


def spelled(name: str, data: st.DataObject) -> str:
    """A DNS name in any case, with or without its final dot."""
    case = data.draw(st.sampled_from([str.lower, str.upper, str.title]))
    return case(name) + data.draw(st.sampled_from(["", "."]))


@given(labels=st.lists(LABELS, min_size=2, max_size=4), data=st.data())
def test_a_record_name_and_alias_in_any_spelling(labels: list[str], data: st.DataObject) -> None:
    name = ".".join(labels)
    record = {"Name": f"{name}.", "Type": "A", "AliasTarget": {"DNSName": f"dualstack.{name}.elb.amazonaws.com."}}
    assert passes(route53.named(spelled(name, data)), record)
    assert passes(route53.alias_to(spelled(f"{name}.elb.amazonaws.com", data)), record)
    assert passes(route53.alias_to({"DNSName": f"{name}.elb.amazonaws.com"}), record)
    assert not passes(route53.named(spelled(f"x{name}", data)), record)
    assert not passes(route53.alias_to(f"x{name}.elb.amazonaws.com"), record)
    outcome = route53.named(f"x{name}.").evaluate(record)
    assert ".." not in outcome.issue("DNS record") and not outcome.ok


def test_a_record_kept_in_upper_case_is_found_by_any_spelling(aws_session) -> None:
    """Route 53 stores names in lower case (an emulator may keep `WWW.`, sorting it before the page a lower-case
    StartRecordName begins): the record is found however its name and the name asked for are spelled."""
    domain = f"{unique('lab')}.example.com"
    made = aws_session.client("route53").create_hosted_zone(Name=domain, CallerReference=unique("z"))
    zone = made["HostedZone"]["Id"].removeprefix("/hostedzone/")
    cdn = distribution(aws_session, "media.s3.amazonaws.com")
    alias = {"HostedZoneId": "Z2FDTNDATAQYW2", "DNSName": f"{cdn['DomainName']}.", "EvaluateTargetHealth": False}
    change(aws_session, zone, {"Name": f"WWW.{domain}.", "Type": "AAAA", "AliasTarget": alias})
    change(aws_session, zone, {"Name": f"WWW.{domain}", "Type": "A", "AliasTarget": alias})
    change(aws_session, zone, {"Name": f"*.{domain}", "Type": "A", "AliasTarget": alias})
    for record_id in (f"www.{domain}|{zone}|A", f"www.{domain}", f"WWW.{domain.upper()}.|{zone}|A"):
        record = described(route53.RECORD_SET, aws_session, record_id)
        assert record["Type"] == "A" and passes(route53.named(f"www.{domain}"), record), record_id
        assert passes(route53.alias_to(cdn), record)
    for record_id in (f"\\052.{domain}|{zone}|A", f"*.{domain.upper()}.|{zone}|A"):
        assert passes(route53.named(f"*.{domain}"), described(route53.RECORD_SET, aws_session, record_id))
    assert route53.RECORD_SET.fetch(aws_session, f"web.{domain}|{zone}|A") is None


def test_the_default_behaviour_serves_from_the_origin_asked_for(site: dict) -> None:
    rest = {"Id": "rest", "DomainName": f"media.s3.{REGION}.amazonaws.com"}
    website = {"Id": "website", "DomainName": f"media.s3-website-{REGION}.amazonaws.com"}

    def serving(target: str) -> dict:
        config = {
            **site["Config"],
            "Origins": {"Items": [rest, website]},
            "DefaultCacheBehavior": {"TargetOriginId": target},
        }
        return {**site, "Config": config}

    for bucket in ("media", "media.s3.amazonaws.com", "arn:aws:s3:::media"):
        assert passes(cloudfront.origin(bucket), serving("rest"))
        assert not passes(cloudfront.origin(bucket), serving("website"))
    assert passes(cloudfront.origin("media", website=True), serving("website"))
    assert miss(cloudfront.origin("media"), cloudfront.DISTRIBUTION, site["Id"], serving("website")) == (
        f"CloudFront distribution {site['Id']}: origin of the default behaviour should be media, but is "
        f"media.s3-website-{REGION}.amazonaws.com."
    )
    assert not passes(cloudfront.origin("media"), serving("gone"))
