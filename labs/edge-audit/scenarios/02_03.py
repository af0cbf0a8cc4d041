"""Step 02.03: the mistakes learners make with the zone and the alias record."""

import uuid

from harness.authoring.scenarios import mistake

CLOUDFRONT_ZONE = "Z2FDTNDATAQYW2"


def _zone(aws, name="edge-audit.example.com", vpc=None):
    settings = {}
    if vpc:
        settings = {
            "VPC": {"VPCRegion": aws.region_name, "VPCId": vpc},
            "HostedZoneConfig": {"PrivateZone": True, "Comment": ""},
        }
    zone = aws.client("route53").create_hosted_zone(Name=name, CallerReference=str(uuid.uuid4()), **settings)
    return zone["HostedZone"]["Id"].removeprefix("/hostedzone/")


def _record(aws, zone, name, *, record_type="A", target=None, values=None):
    record = {"Name": name, "Type": record_type}
    if values:
        record.update(TTL=300, ResourceRecords=[{"Value": v} for v in values])
    else:
        record["AliasTarget"] = {"HostedZoneId": CLOUDFRONT_ZONE, "DNSName": target, "EvaluateTargetHealth": False}
    aws.client("route53").change_resource_record_sets(
        HostedZoneId=zone, ChangeBatch={"Changes": [{"Action": "UPSERT", "ResourceRecordSet": record}]}
    )


def _domain(aws, handles):
    return aws.client("cloudfront").get_distribution(Id=handles["02_01_distribution"])["Distribution"]["DomainName"]


@mistake(expect="pass")
def alias_with_a_final_dot_and_an_aaaa_beside(aws, handles):
    zone = _zone(aws)
    _record(aws, zone, "www.edge-audit.example.com.", target=_domain(aws, handles) + ".")
    _record(aws, zone, "www.edge-audit.example.com.", record_type="AAAA", target=_domain(aws, handles))


@mistake(issue=r"DNS record www\.edge-audit\.example\.com CNAME: type should be A, but is CNAME")
def a_cname_instead_of_an_alias(aws, handles):
    _record(aws, _zone(aws), "www.edge-audit.example.com", record_type="CNAME", values=[_domain(aws, handles)])


@mistake(issue=r"DNS record www\.edge-audit\.example\.com A: alias target should be \w+\.cloudfront\.net, but is none")
def a_plain_a_record(aws, handles):
    _record(aws, _zone(aws), "www.edge-audit.example.com", values=["192.0.2.10"])


@mistake(issue=r"DNS record edge-audit\.example\.com A: name should be www\.edge-audit\.example\.com")
def the_apex_instead_of_www(aws, handles):
    _record(aws, _zone(aws), "edge-audit.example.com", target=_domain(aws, handles))


@mistake(issue=r"Hosted zone \w+: zone should be public, but is private")
def a_private_zone(aws, handles):
    vpc = aws.client("ec2").create_vpc(CidrBlock="10.40.0.0/16")["Vpc"]["VpcId"]
    _record(aws, _zone(aws, vpc=vpc), "www.edge-audit.example.com", target=_domain(aws, handles))


@mistake(issue=r"Hosted zone \w+: domain should be edge-audit\.example\.com, but is example\.com")
def the_parent_domain(aws, handles):
    _record(aws, _zone(aws, "example.com"), "www.edge-audit.example.com", target=_domain(aws, handles))
