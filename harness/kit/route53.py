"""Route 53 validators: a hosted zone (public or private, its records). Id = the zone's Id (`Z...`)."""

from __future__ import annotations

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


def _fqdn(name: str) -> str:
    """A DNS name as Route 53 compares names: lower case, with the final dot, `\\052` read as `*`."""
    name = name.replace("\\052", "*").lower()
    return name if name.endswith(".") else f"{name}."


def _host(value: str) -> str:
    """A record value as a host: lower case, no final dot, the `dualstack.` the console puts before a load
    balancer's name left out (it is the same load balancer)."""
    return value.lower().rstrip(".").removeprefix("dualstack.")


def domain(name: str) -> Requirement:
    """The zone's domain (in any case, with or without the final dot)."""
    return require("domain", _fqdn(name), lambda z: z.get("Name"), compare=lambda actual, e: _fqdn(actual or "") == e)


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
