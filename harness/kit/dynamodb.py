"""DynamoDB validators: the table (keys, billing mode, point-in-time recovery, global secondary indexes, TTL,
streams, encryption). Id = the table name."""

from __future__ import annotations

from typing import Any

from harness.kit import kms, refs
from harness.kit.kinds import Kind, LazyResource, Resource, register, state_in
from harness.kit.later import later
from harness.kit.require import Requirement, require

Key = tuple[str, str]
"""(attribute name, type): `("pk", "S")`; types are S (string), N (number), B (binary)."""


def _fetch_table(session: Any, name: str) -> Resource:
    client = session.client("dynamodb")
    table = client.describe_table(TableName=name)["Table"]

    def pitr() -> str:
        backups = client.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
        return backups.get("PointInTimeRecoveryDescription", {}).get("PointInTimeRecoveryStatus", "DISABLED")

    def ttl() -> dict[str, Any]:
        return client.describe_time_to_live(TableName=name)["TimeToLiveDescription"]

    return LazyResource(table, {"PointInTimeRecovery": pitr, "TimeToLive": ttl})


TABLE = register(
    Kind(
        "AWS::DynamoDB::Table",
        "DynamoDB table",
        _fetch_table,
        settling=state_in("TableStatus", {"CREATING", "UPDATING"}, label="status"),
        retry_after_s=10,
    )
)
"""`describe_table`'s table (`TableName`, `TableArn`, `KeySchema`, `AttributeDefinitions`, `BillingModeSummary`,
`GlobalSecondaryIndexes`, `StreamSpecification`, `LatestStreamArn`, `SSEDescription`) plus `PointInTimeRecovery`
(`"ENABLED"`) and `TimeToLive` (`{"TimeToLiveStatus", "AttributeName"}`), each read when first used."""


def _keys(schema: list[dict[str, str]], definitions: list[dict[str, str]]) -> list[str]:
    types = {d["AttributeName"]: d["AttributeType"] for d in definitions}
    ordered = sorted(schema, key=lambda k: k["KeyType"] != "HASH")
    return [f"{k['KeyType'].lower()} {k['AttributeName']} ({types.get(k['AttributeName'], '?')})" for k in ordered]


def _wanted(partition: Key, sort: Key | None) -> list[str]:
    return [f"hash {partition[0]} ({partition[1]})"] + ([f"range {sort[0]} ({sort[1]})"] if sort else [])


def keys(partition: Key, sort: Key | None = None) -> Requirement:
    """The primary key: partition (hash) key and optional sort (range) key, names and types."""
    return require(
        "primary key",
        _wanted(partition, sort),
        lambda t: _keys(t.get("KeySchema", []), t.get("AttributeDefinitions", [])),
        hint="The key schema is fixed at creation: recreate the table with the step's keys.",
    )


def billing_mode(mode: str = "PAY_PER_REQUEST") -> Requirement:
    """PAY_PER_REQUEST (on-demand) or PROVISIONED (the default when never set)."""
    return require(
        "billing mode", mode, lambda t: (t.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED")
    )


def point_in_time_recovery(enabled: bool = True) -> Requirement:
    """Point-in-time recovery (continuous backups) is on."""
    return require(
        "point-in-time recovery",
        enabled,
        lambda t: t["PointInTimeRecovery"] == "ENABLED",
        hint="Turn on point-in-time recovery in the table's backups settings.",
    )


def ttl(attribute_name: str) -> Requirement:
    """Time to live is enabled on `attribute_name`."""
    return require(
        "time to live",
        f"enabled on {attribute_name}",
        lambda t: (
            f"enabled on {t['TimeToLive'].get('AttributeName')}"
            if t["TimeToLive"].get("TimeToLiveStatus") in ("ENABLED", "ENABLING")
            else "disabled"
        ),
    )


def stream(view_type: str = "NEW_AND_OLD_IMAGES") -> Requirement:
    """A stream is enabled with `view_type` (KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES)."""
    return require(
        "stream",
        view_type,
        lambda t: (
            (t.get("StreamSpecification") or {}).get("StreamViewType")
            if (t.get("StreamSpecification") or {}).get("StreamEnabled")
            else "disabled"
        ),
    )


def global_index(name: str, partition: Key, sort: Key | None = None, *, projection: str | None = None) -> Requirement:
    """A global secondary index `name` with these keys (and projection type, e.g. ALL, if given)."""
    wanted = _wanted(partition, sort) + ([f"projection {projection}"] if projection else [])

    def described(table: Resource) -> list[str] | None:
        index = next((i for i in table.get("GlobalSecondaryIndexes", []) if i["IndexName"] == name), None)
        if index is None:
            return None
        found = _keys(index["KeySchema"], table.get("AttributeDefinitions", []))
        return found + ([f"projection {index['Projection']['ProjectionType']}"] if projection else [])

    return require(
        f"global secondary index {name}",
        wanted,
        described,
        explain=lambda actual: (
            f"it has no global secondary index {name}."
            if actual is None
            else f"its index {name} has {', '.join(actual)}, not {', '.join(wanted)}."
        ),
    )


def encrypted_with_kms() -> Requirement:
    """Server-side encryption with a KMS key (AWS managed or customer managed), not the default owned key."""
    return require(
        "encryption",
        "KMS",
        lambda t: (t.get("SSEDescription") or {}).get("SSEType") or "AWS owned key",
    )


@later
def encrypted_with(key: Resource | str | None) -> Requirement:
    """Server-side encryption with the KMS key: a described key, its id or ARN, an alias or alias ARN, whichever
    the table was given (DynamoDB answers the key's ARN; `alias/aws/dynamodb` is the AWS managed key)."""
    return refs.refers(
        "KMS key", kms.KEY_REFERENCE, key, lambda t: (t.get("SSEDescription") or {}).get("KMSMasterKeyArn")
    )


# --- ARNs --------------------------------------------------------------------------------------------------------


def _stream_arn(resource: str) -> refs.ArnPart | None:
    """`table/NAME/stream/LABEL`: the table's stream, its label as the version."""
    kind, _, rest = refs.split_resource(resource)
    if kind != "table" or "/stream/" not in rest:
        return None
    table, _, label = rest.partition("/stream/")
    return "stream", table, label


refs.reads_arns("dynamodb", _stream_arn)
