"""Outsider: step 02.03 (the public hosted zone and the alias record to the distribution)."""

from harness.authoring.scenarios import mistake

from ._lib import CLOUDFRONT_ZONE, all_of, reference

DOMAIN = "edge-audit.example.com"
WWW = f"www.{DOMAIN}"


def _zone(aws, name=DOMAIN, *, vpc=None):
    args = {"Name": name, "CallerReference": reference()}
    if vpc:
        args["VPC"] = {"VPCRegion": aws.region_name, "VPCId": vpc}
        args["HostedZoneConfig"] = {"Comment": "private", "PrivateZone": True}
    return aws.client("route53").create_hosted_zone(**args)["HostedZone"]["Id"].split("/")[-1]


def _domain(aws, handles):
    return aws.client("cloudfront").get_distribution(Id=handles["02_01_distribution"])["Distribution"]["DomainName"]


def _alias(aws, zone_id, name, target, record_type="A"):
    record = {
        "Name": name,
        "Type": record_type,
        "AliasTarget": {"HostedZoneId": CLOUDFRONT_ZONE, "DNSName": target, "EvaluateTargetHealth": False},
    }
    _change(aws, zone_id, record)


def _change(aws, zone_id, record):
    aws.client("route53").change_resource_record_sets(
        HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "UPSERT", "ResourceRecordSet": record}]}
    )


@mistake(expect="pass")
def right_alias_a(aws, handles):
    """Right: a public zone edge-audit.example.com, an alias A www.edge-audit.example.com to the distribution."""
    _alias(aws, _zone(aws), WWW, _domain(aws, handles))


@mistake(expect="pass")
def equivalent_final_dots_and_aaaa_beside(aws, handles):
    """Equivalent: names with final dots, upper-case www, and an alias AAAA for IPv6 beside the A record."""
    zone_id = _zone(aws, f"{DOMAIN}.")
    target = _domain(aws, handles) + "."
    _alias(aws, zone_id, f"WWW.{DOMAIN}.", target, "AAAA")
    _alias(aws, zone_id, f"WWW.{DOMAIN}.", target)


@mistake(expect="pass")
def right_beside_an_older_private_zone(aws, handles):
    """Decoy first: a private zone edge-audit.example.com on a scratch VPC (the learner's first try, with a
    plain A record), then the public zone and its alias. Must pass, resolving the public zone."""
    vpc = aws.client("ec2").create_vpc(CidrBlock="10.99.0.0/16")["Vpc"]["VpcId"]
    private = _zone(aws, vpc=vpc)
    _change(aws, private, {"Name": WWW, "Type": "A", "TTL": 300, "ResourceRecords": [{"Value": "10.99.0.10"}]})
    _alias(aws, _zone(aws), WWW, _domain(aws, handles))


@mistake(issue=all_of("(zone|edge-audit\\.example\\.com)", "(public|private)"))
def private_zone(aws, handles):
    """Cause: the zone edge-audit.example.com is private (associated with a VPC), not public."""
    vpc = aws.client("ec2").create_vpc(CidrBlock="10.99.0.0/16")["Vpc"]["VpcId"]
    _alias(aws, _zone(aws, vpc=vpc), WWW, _domain(aws, handles))


@mistake(issue=all_of("www\\.edge-audit\\.example\\.com", "(alias|CNAME|type|\\bA\\b)"))
def cname_instead_of_alias(aws, handles):
    """Cause: www.edge-audit.example.com is a CNAME to the distribution's domain, not an alias A record."""
    zone_id = _zone(aws)
    record = {"Name": WWW, "Type": "CNAME", "TTL": 300, "ResourceRecords": [{"Value": _domain(aws, handles)}]}
    _change(aws, zone_id, record)


@mistake(issue=all_of("www\\.edge-audit\\.example\\.com", "(alias|distribution|cloudfront)"))
def alias_to_another_distribution(aws, handles):
    """Mis-wired: the alias points to d2old0example.cloudfront.net (an earlier distribution), not this one."""
    _alias(aws, _zone(aws), WWW, "d2old0example.cloudfront.net")


@mistake(issue=all_of("www\\.edge-audit\\.example\\.com", "(alias|missing|no |not found|record)"))
def alias_at_the_apex(aws, handles):
    """Cause: the alias A record is edge-audit.example.com (the apex), not www.edge-audit.example.com."""
    _alias(aws, _zone(aws), DOMAIN, _domain(aws, handles))


@mistake(issue=all_of("(zone|www\\.edge-audit)", "(edge-audit\\.example\\.com|domain|zone)"))
def zone_for_the_parent_domain(aws, handles):
    """Cause: the zone is example.com (the parent domain) holding www.edge-audit.example.com, not a zone for
    edge-audit.example.com."""
    _alias(aws, _zone(aws, "example.com"), WWW, _domain(aws, handles))


@mistake(issue=all_of("www\\.edge-audit\\.example\\.com", "(alias|distribution|cloudfront|value)"))
def plain_a_record_with_an_address(aws, handles):
    """Cause: www.edge-audit.example.com is a plain A record holding an address (the learner resolved the
    distribution once), not an alias to it."""
    zone_id = _zone(aws)
    _change(aws, zone_id, {"Name": WWW, "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": "192.0.2.44"}]})


@mistake(expect="pass")
def equivalent_final_dots_only(aws, handles):
    """Equivalent: the zone, the record and the alias target written with their final dots (lower case, A only)."""
    _alias(aws, _zone(aws, f"{DOMAIN}."), f"{WWW}.", _domain(aws, handles) + ".")


@mistake(expect="pass")
def equivalent_upper_case_record_name(aws, handles):
    """Equivalent: the record typed as WWW.edge-audit.example.com (DNS names are case-insensitive; no final dot)."""
    _alias(aws, _zone(aws), f"WWW.{DOMAIN}", _domain(aws, handles))


@mistake(expect="pass")
def equivalent_aaaa_alias_beside(aws, handles):
    """Equivalent: an alias AAAA for IPv6 beside the alias A (lower case, no final dots), as the console offers."""
    zone_id = _zone(aws)
    _alias(aws, zone_id, WWW, _domain(aws, handles))
    _alias(aws, zone_id, WWW, _domain(aws, handles), "AAAA")
