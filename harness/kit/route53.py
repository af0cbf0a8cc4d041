"""Route 53 validators: a hosted zone (public or private, its records; id = the zone's Id, `Z...`) and a record
set (id = `NAME|ZONE|TYPE[|SET]`, or the record's name)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from harness.kit import refs
from harness.kit.kinds import Kind, LazyResource, Resource, register
from harness.kit.later import later
from harness.kit.require import Requirement, require


def _fetch_zone(session: Any, zone_id: str) -> Resource:
    client = session.client("route53")
    answer = client.get_hosted_zone(Id=zone_id)
    zone = {**answer["HostedZone"], "VPCs": answer.get("VPCs", [])}

    def records() -> list[dict[str, Any]]:
        pages = client.get_paginator("list_resource_record_sets").paginate(HostedZoneId=zone_id)
        return [r for page in pages for r in page["ResourceRecordSets"]]

    return LazyResource(zone, {"Records": records})


HOSTED_ZONE = register(Kind("AWS::Route53::HostedZone", "hosted zone", _fetch_zone))
"""`get_hosted_zone`'s zone (`Id`, `Name` with its final dot, `Config`: `{"PrivateZone"}`) with `VPCs` (`[{"VPCId",
"VPCRegion"}]`), plus `Records` (`list_resource_record_sets`), read when first used."""


_OCTAL = re.compile(r"\\([0-7]{3})")


def _unescaped(name: str) -> str:
    """A DNS name with Route 53's octal escapes read (`\\052` is `*`, `\\100` is `@`), as its docs' "DNS domain
    name format" says it stores them."""
    return _OCTAL.sub(lambda m: chr(int(m[1], 8)), name)


def _fqdn(name: str) -> str:
    """A DNS name as Route 53 compares names: lower case, with the final dot, octal escapes (`\\052`) read."""
    name = _unescaped(name).lower()
    return name if name.endswith(".") else f"{name}."


def _host(value: str) -> str:
    """A record value as a host: lower case, no final dot, the `dualstack.` the console puts before a load
    balancer's name left out (it is the same load balancer)."""
    return value.lower().rstrip(".").removeprefix("dualstack.")


def _bare(name: str | None) -> str | None:
    """A DNS name as a sentence shows it: without the final dot (never "example.com..")."""
    return _unescaped(name).rstrip(".") if name else name


def domain(name: str) -> Requirement:
    """The zone's domain (in any case, with or without the final dot)."""
    return require(
        "domain",
        _bare(name),
        lambda z: _bare(z.get("Name")),
        compare=lambda actual, e: _fqdn(actual or "") == _fqdn(e),
    )


@later
def private(vpc: Resource | str | None = None) -> Requirement:
    """A private zone (associated with the VPC, if given: a described VPC, its id or ARN)."""
    vpc_id = refs.shown(refs.VPC, vpc)

    def actual(zone: Resource) -> str:
        if not zone.get("Config", {}).get("PrivateZone"):
            return "public"
        return f"private to {', '.join(v['VPCId'] for v in zone['VPCs']) or 'no VPC'}"

    def same(found: str, _: str) -> bool:
        if not found.startswith("private"):
            return False
        return vpc is None or refs.current().among(refs.VPC, found.removeprefix("private to ").split(", "), vpc)

    return require("private zone", f"private to {vpc_id}" if vpc is not None else "private", actual, compare=same)


def public() -> Requirement:
    """A public zone (answering the internet), not a private one."""
    return require(
        "zone",
        "public",
        lambda zone: "private" if zone.get("Config", {}).get("PrivateZone") else "public",
        hint="Create a public hosted zone (a private one answers only inside its VPCs).",
    )


def record(name: str, record_type: str, value: str | None = None) -> Requirement:
    """A record `name` of `record_type` (A, CNAME, ...), holding `value` or aliasing to it if given (names in any
    case, with or without the final dot; a load balancer alias with or without `dualstack.`)."""
    fqdn = _fqdn(name)

    def values(zone: Resource) -> list[str] | None:
        found = [r for r in zone["Records"] if _fqdn(r["Name"]) == fqdn and r["Type"] == record_type.upper()]
        if not found:
            return None
        return sorted(
            [v["Value"] for r in found for v in r.get("ResourceRecords", [])]
            + [r["AliasTarget"]["DNSName"].rstrip(".") for r in found if r.get("AliasTarget")]
        )

    return require(
        f"record {fqdn} {record_type}",
        value or "present",
        values,
        compare=lambda actual, expected: (
            actual is not None and (expected == "present" or _host(expected) in map(_host, actual))
        ),
        explain=lambda actual: (
            f"it has no {record_type} record {fqdn.rstrip('.')}."
            if actual is None
            else f"its {record_type} record {fqdn.rstrip('.')} holds {', '.join(actual) or 'nothing'}, not {value}."
        ),
    )


RECORD_TYPES_FIRST = ("A", "AAAA", "CNAME", "ALIAS", "MX", "TXT", "NS", "SOA")


def _fetch_record(session: Any, record_id: str) -> Resource | None:
    """`NAME|ZONE|TYPE[|SET]` (as the recorder and Cloud Control write it), or a record's name alone (its zone
    found among the account's zones, the record of the likeliest type first: A, AAAA, CNAME...)."""
    client = session.client("route53")
    name, zone, record_type, set_id = ([*record_id.split("|"), "", "", ""])[:4]
    zones = [zone.removeprefix("/hostedzone/")] if zone else _zones_for(client, name)
    for zone_id in zones:
        found = [
            r
            for r in _records_named(client, zone_id, name)
            if (not record_type or r["Type"] == record_type.upper())
            and (not set_id or r.get("SetIdentifier") == set_id)
        ]
        found.sort(key=lambda r: RECORD_TYPES_FIRST.index(r["Type"]) if r["Type"] in RECORD_TYPES_FIRST else 99)
        if found:
            return {**found[0], "HostedZoneId": zone_id}
    return None


def _records_named(client: Any, zone_id: str, name: str) -> list[dict[str, Any]]:
    """The zone's records named `name` in any spelling (case, final dot, octal escapes): the page from
    `StartRecordName` first, and if a name kept in another case sorts elsewhere (an emulator may keep `WWW.`
    where Route 53 stores `www.`), every page."""
    fqdn = _fqdn(name)
    first = client.list_resource_record_sets(HostedZoneId=zone_id, StartRecordName=fqdn)["ResourceRecordSets"]
    found = [r for r in first if _fqdn(r["Name"]) == fqdn]
    if found:
        return found
    pages = client.get_paginator("list_resource_record_sets").paginate(HostedZoneId=zone_id)
    return [r for page in pages for r in page["ResourceRecordSets"] if _fqdn(r["Name"]) == fqdn]


def _zones_for(client: Any, name: str) -> list[str]:
    """The account's zones whose domain holds `name`, the most specific first."""
    pages = client.get_paginator("list_hosted_zones").paginate()
    zones = [z for page in pages for z in page["HostedZones"]]
    fqdn = _fqdn(name)
    holding = [z for z in zones if fqdn == _fqdn(z["Name"]) or fqdn.endswith(f".{_fqdn(z['Name'])}")]
    return [z["Id"].removeprefix("/hostedzone/") for z in sorted(holding, key=lambda z: -len(z["Name"]))]


def _record_name(record_id: str) -> str:
    """`www.example.com A` for `www.example.com.|Z123|A`."""
    name, _, rest = record_id.partition("|")
    record_type = rest.split("|")[1] if rest.count("|") >= 1 else ""
    return f"{name.rstrip('.')} {record_type}".strip()


RECORD_SET = register(
    Kind("AWS::Route53::RecordSet", "DNS record", _fetch_record, naming="{noun} {name}", short=_record_name)
)
"""`list_resource_record_sets`' record plus its zone: `{"Name": "www.example.com.", "Type": "A", "HostedZoneId",
"AliasTarget": {"DNSName": "d111.cloudfront.net.", "HostedZoneId": "Z2FDTNDATAQYW2", "EvaluateTargetHealth"}}` or
`"TTL"` and `"ResourceRecords": [{"Value": "192.0.2.1"}]`."""


def record_type(value: str) -> Requirement:
    """The record's type: `A`, `AAAA`, `CNAME`, `MX`, `TXT`... (in any case)."""
    return require("type", value.upper(), lambda r: r.get("Type"))


def named(name: str) -> Requirement:
    """The record's name (in any case, with or without the final dot, `\\052` read as `*`)."""
    return require("name", _bare(name), lambda r: _bare(r.get("Name")), compare=lambda a, e: _fqdn(a or "") == _fqdn(e))


def _alias_host(target: Resource | str | None) -> str | None:
    """The host an alias to `target` names: a described distribution's `DomainName`, a described load balancer's
    `DNSName`, or a name as given."""
    if isinstance(target, Mapping):
        target = target.get("DomainName") or target.get("DNSName")
    return _host(str(target)) if target else None


@later
def alias_to(target: Resource | str | None) -> Requirement:
    """An alias record to `target`: a described CloudFront distribution or load balancer, or its DNS name (in any
    case, with or without the final dot or the `dualstack.` Route 53 puts before a load balancer's name)."""
    wanted = _alias_host(target)
    return require(
        "alias target",
        wanted,
        lambda r: _bare((r.get("AliasTarget") or {}).get("DNSName")) or None,
        compare=lambda actual, _: wanted is not None and actual is not None and _host(actual) == wanted,
        hint="Make the record an alias to the resource.",
    )


def values(*expected: str) -> Requirement:
    """A plain record holding exactly these values (an IP address, a host name: compared without case or final
    dot), in any order."""
    wanted = sorted(_host(v) for v in expected)
    return require(
        "values",
        wanted,
        lambda r: sorted(_host(v["Value"]) for v in r.get("ResourceRecords") or []),
    )
