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


_SOURCE_OPERATORS = {
    "Equals": "only {}",
    "StartsWith": "only {}*",
    "EndsWith": "only *{}",
    "NotEquals": "except {}",
    "NotStartsWith": "except {}*",
    "NotEndsWith": "except *{}",
}
"""How an advanced selector's `eventSource` operator narrows the events it records, as a message says it."""


def _read_only(field: dict[str, Any]) -> frozenset[str]:
    """The kinds (`read`, `write`) an advanced selector's `readOnly` field keeps (`Equals`, `NotEquals`, or absent:
    both)."""
    both = frozenset({"true", "false"})
    kept = frozenset(field.get("Equals") or both) - frozenset(field.get("NotEquals") or ())
    return frozenset("read" if value == "true" else "write" for value in kept & both)


def _advanced_coverage(advanced: list[dict[str, Any]]) -> dict[str, list[str]]:
    """For each kind of management event the advanced selectors record, how each selector narrows its sources
    (`[]` for a selector that records every source)."""
    covered: dict[str, list[str]] = {}
    for selector in advanced:
        fields = {f.get("Field"): f for f in selector.get("FieldSelectors", [])}
        if "Management" not in (fields.get("eventCategory", {}).get("Equals") or []):
            continue
        source = fields.get("eventSource", {})
        narrowings = [shown.format(", ".join(source[op])) for op, shown in _SOURCE_OPERATORS.items() if source.get(op)]
        others = sorted(str(f) for f in set(fields) - {"eventCategory", "readOnly", "eventSource"})
        narrowing = ", ".join(narrowings + [f"only where {field} matches" for field in others])
        for kind in _read_only(fields.get("readOnly", {})):
            covered.setdefault(kind, []).append(narrowing)
    return covered


def _basic_coverage(basic: list[dict[str, Any]]) -> dict[str, list[str]]:
    """The same for basic selectors: `IncludeManagementEvents` with a `ReadWriteType`, less the sources in
    `ExcludeManagementEventSources` (`kms.amazonaws.com`, `rdsdata.amazonaws.com`)."""
    covered: dict[str, list[str]] = {}
    for selector in basic:
        if not selector.get("IncludeManagementEvents", True):
            continue
        excluded = selector.get("ExcludeManagementEventSources") or []
        narrowing = f"except {', '.join(excluded)}" if excluded else ""
        for kind in READ_WRITE.get(selector.get("ReadWriteType", "All"), frozenset()):
            covered.setdefault(kind, []).append(narrowing)
    return covered


def management_events_coverage(selectors: dict[str, Any]) -> dict[str, str]:
    """For each kind of management event (`read`, `write`) the trail records, from which sources: `""` for every
    source, else how the selectors narrow them (`except kms.amazonaws.com`, `only s3.amazonaws.com`). Advanced
    selectors when it has any, else basic ones; a trail with neither records all (AWS's default). Selectors add
    up: a kind one selector records from every source is recorded from every source."""
    advanced = selectors.get("AdvancedEventSelectors") or []
    basic = selectors.get("EventSelectors")
    if not advanced and not basic:
        return {"read": "", "write": ""}
    covered = _advanced_coverage(advanced) if advanced else _basic_coverage(basic or [])
    return {kind: "" if "" in ways else "; ".join(sorted(set(ways))) for kind, ways in covered.items()}


def management_events_recorded(selectors: dict[str, Any]) -> frozenset[str]:
    """Which management events (`read`, `write`) a trail's selectors record from every source: advanced selectors
    when it has any (`eventCategory` equals `Management`, `readOnly` `true`/`false` or either, no `eventSource`
    narrowing), else basic ones (`IncludeManagementEvents` with a `ReadWriteType`, no
    `ExcludeManagementEventSources`); a trail with neither records all (AWS's default)."""
    return frozenset(kind for kind, narrowing in management_events_coverage(selectors).items() if not narrowing)


class _Recorded(str):
    """What a message says a trail records (`All`, `ReadOnly`, `WriteOnly`, `none`, or one of them narrowed:
    `All except kms.amazonaws.com`, `ReadOnly, and WriteOnly except kms.amazonaws.com`), knowing which kinds it
    records from every source."""

    everywhere: frozenset[str]


def _management_events(trail: Resource) -> _Recorded:
    coverage = management_events_coverage(trail["Selectors"])
    names = {v: k for k, v in READ_WRITE.items()}
    narrowings = set(coverage.values())
    if not coverage:
        shown = "none"
    elif len(narrowings) == 1:
        shown = f"{names[frozenset(coverage)]} {narrowings.pop()}".strip()
    else:
        shown = ", and ".join(
            f"{names[frozenset({kind})]} {coverage[kind]}".strip() for kind in ("read", "write") if kind in coverage
        )
    recorded = _Recorded(shown)
    recorded.everywhere = frozenset(kind for kind, narrowing in coverage.items() if not narrowing)
    return recorded


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
    """The trail records management events from every source: `All` (read and write), or at least `ReadOnly` or
    `WriteOnly` ones, whether its event selectors are basic (`IncludeManagementEvents`, `ReadWriteType`; a trail
    whose `ExcludeManagementEventSources` leaves out KMS or RDS Data events does not record them all) or advanced
    (`eventCategory` = `Management`, `readOnly`; an `eventSource` condition narrows them likewise)."""
    if read_write not in READ_WRITE:
        raise ValueError(f"records_management_events: read_write is one of {sorted(READ_WRITE)}, not {read_write!r}")
    wanted = READ_WRITE[read_write]
    return require(
        "management events",
        read_write,
        _management_events,
        compare=lambda actual, _: wanted <= actual.everywhere,
        hint="Record management events from every source in the trail's event selectors.",
    )
