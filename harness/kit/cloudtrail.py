"""CloudTrail validators: a trail (logging, multi-region, log file validation, bucket, KMS). Id = its name or ARN."""

from __future__ import annotations

from typing import Any

from harness.kit import kms, refs
from harness.kit.kinds import Kind, LazyResource, Resource, first, register
from harness.kit.later import later
from harness.kit.require import Requirement, attribute, require


def _fetch_trail(session: Any, trail: str) -> Resource | None:
    client = session.client("cloudtrail")
    trails = client.describe_trails(trailNameList=[trail])["trailList"]
    found = first([t for t in trails if trail in (t.get("Name"), t.get("TrailARN"))])  # moto answers every trail
    if found is None:
        return None

    def selectors() -> dict[str, Any]:
        answer = client.get_event_selectors(TrailName=found["TrailARN"])
        return {k: answer.get(k) or [] for k in ("EventSelectors", "AdvancedEventSelectors")}

    return LazyResource(
        found,
        {
            "IsLogging": lambda: client.get_trail_status(Name=found["TrailARN"])["IsLogging"],
            "Selectors": selectors,
        },
    )


TRAIL = register(Kind("AWS::CloudTrail::Trail", "trail", _fetch_trail))
"""`describe_trails`' trail, plus `IsLogging` and `Selectors` (`{"EventSelectors": [...],
"AdvancedEventSelectors": [...]}`, as `get_event_selectors` answers), each read when first used."""

READ_WRITE = {"All": frozenset({"read", "write"}), "ReadOnly": frozenset({"read"}), "WriteOnly": frozenset({"write"})}


def management_events_recorded(selectors: dict[str, Any]) -> frozenset[str]:
    """Which management events (`read`, `write`) a trail's selectors record: advanced selectors when it has any
    (`eventCategory` equals `Management`, `readOnly` `true`/`false` or either), else basic ones
    (`IncludeManagementEvents` with a `ReadWriteType`); a trail with neither records all (AWS's default). A selector
    that leaves some sources out (`ExcludeManagementEventSources`, an advanced selector's other fields such as
    `eventSource` NotEquals `kms.amazonaws.com`) records not all management events, so it counts for none."""
    advanced = selectors.get("AdvancedEventSelectors") or []
    if advanced:
        found: set[str] = set()
        for selector in advanced:
            fields = {f.get("Field"): f for f in selector.get("FieldSelectors", [])}
            category = fields.get("eventCategory", {})
            if "Management" not in (category.get("Equals") or []) or set(fields) - {"eventCategory", "readOnly"}:
                continue  # another field (eventSource NotEquals kms...) leaves some management events out
            read_only = fields.get("readOnly", {}).get("Equals") or ["true", "false"]
            found |= {"read" if value == "true" else "write" for value in read_only}
        return frozenset(found)
    basic = selectors.get("EventSelectors")
    if not basic:
        return READ_WRITE["All"]
    recorded = [READ_WRITE.get(s.get("ReadWriteType", "All"), frozenset()) for s in basic]
    included = [
        r
        for s, r in zip(basic, recorded, strict=True)
        if s.get("IncludeManagementEvents", True) and not s.get("ExcludeManagementEventSources")
    ]
    return frozenset().union(*included)


def is_logging(enabled: bool = True) -> Requirement:
    """The trail is logging (started)."""
    return attribute("logging", "IsLogging", enabled, hint="Start logging on the trail.")


def multi_region(enabled: bool = True) -> Requirement:
    """The trail records every region."""
    return attribute("multi-region", "IsMultiRegionTrail", enabled)


def log_file_validation(enabled: bool = True) -> Requirement:
    """Log file integrity validation is on."""
    return attribute("log file validation", "LogFileValidationEnabled", enabled)


@later
def to_bucket(bucket: Resource | str | None) -> Requirement:
    """Delivers its logs to the bucket (a described bucket, its name or ARN)."""
    return refs.refers("S3 bucket", refs.BUCKET, bucket, lambda t: t.get("S3BucketName"))


def encrypted() -> Requirement:
    """Log files are encrypted with a KMS key (any key)."""
    return require("KMS key", "set", lambda t: t.get("KmsKeyId"), compare=lambda actual, _: bool(actual))


@later
def encrypted_with(key: Resource | str | None) -> Requirement:
    """Log files are encrypted with the KMS key: a described key, its id or ARN, an alias or alias ARN, whichever
    the trail was given on either side."""
    return refs.refers("KMS key", kms.KEY_REFERENCE, key, lambda t: t.get("KmsKeyId"))


def records_management_events(read_write: str = "All") -> Requirement:
    """The trail records management events: `All` (read and write), or at least `ReadOnly` or `WriteOnly` ones,
    whether its event selectors are basic (`IncludeManagementEvents`, `ReadWriteType`) or advanced
    (`eventCategory` = `Management`, `readOnly`)."""
    if read_write not in READ_WRITE:
        raise ValueError(f"records_management_events: read_write is one of {sorted(READ_WRITE)}, not {read_write!r}")
    wanted = READ_WRITE[read_write]
    names = {frozenset(): "none", **{v: k for k, v in READ_WRITE.items()}}
    return require(
        "management events",
        read_write,
        lambda t: names[management_events_recorded(t["Selectors"])],
        compare=lambda actual, _: wanted <= READ_WRITE.get(actual, frozenset()),
        hint="Record management events in the trail's event selectors.",
    )
