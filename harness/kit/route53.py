"""Route 53 validators: a hosted zone (public or private, its records). Id = the zone's Id (`Z...`)."""

from __future__ import annotations

from typing import Any

from harness.kit.kinds import Kind, LazyResource, Resource, id_of, register
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
    return name if name.endswith(".") else f"{name}."


def domain(name: str) -> Requirement:
    return require("domain", _fqdn(name), lambda z: z.get("Name"))


def private(vpc: Resource | str | None = None) -> Requirement:
    """A private zone (associated with the VPC, if given)."""
    vpc_id = id_of(vpc, "VpcId")
    return require(
        "private zone",
        f"private to {vpc_id}" if vpc_id else "private",
        lambda z: (
            (
                ("private" + (f" to {vpc_id}" if vpc_id in [v["VPCId"] for v in z["VPCs"]] else ""))
                if vpc_id
                else "private"
            )
            if z.get("Config", {}).get("PrivateZone")
            else "public"
        ),
    )


def record(name: str, record_type: str, value: str | None = None) -> Requirement:
    """A record `name` of `record_type` (A, CNAME, ...), holding `value` or aliasing to it if given."""
    fqdn = _fqdn(name)

    def values(zone: Resource) -> list[str] | None:
        found = [r for r in zone["Records"] if r["Name"] == fqdn and r["Type"] == record_type]
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
            actual is not None and (expected == "present" or expected.rstrip(".") in actual)
        ),
        explain=lambda actual: (
            f"it has no {record_type} record {fqdn.rstrip('.')}."
            if actual is None
            else f"its {record_type} record {fqdn.rstrip('.')} holds {', '.join(actual) or 'nothing'}, not {value}."
        ),
    )
