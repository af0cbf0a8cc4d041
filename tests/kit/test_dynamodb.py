"""DynamoDB table kind and requirements on moto: keys, billing, PITR, TTL, streams, GSIs, encryption."""

from __future__ import annotations

from typing import Any

import pytest

from harness.kit import dynamodb
from harness.kit.aws import fetch_or_none
from tests.kit.conftest import described, miss, passes, unique


def make_table(aws_session: Any, **settings: Any) -> str:
    name = unique("table")
    params: dict[str, Any] = {
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
        ]
        + ([{"AttributeName": "email", "AttributeType": "S"}] if "GlobalSecondaryIndexes" in settings else []),
        "BillingMode": "PAY_PER_REQUEST",
        **settings,
    }
    aws_session.client("dynamodb").create_table(TableName=name, **params)
    return name


def test_a_missing_table_is_not_found(aws_session) -> None:
    assert fetch_or_none(lambda: dynamodb.TABLE.fetch(aws_session, "no-such-table")) is None


def test_keys_and_billing(aws_session) -> None:
    name = make_table(aws_session)
    table = described(dynamodb.TABLE, aws_session, name)
    assert passes(dynamodb.keys(("pk", "S"), ("sk", "N")), table)
    assert passes(dynamodb.billing_mode("PAY_PER_REQUEST"), table)
    assert miss(dynamodb.keys(("id", "S")), dynamodb.TABLE, name, table) == (
        f"DynamoDB table {name}: primary key should be hash id (S), but is hash pk (S), range sk (N)."
    )
    assert miss(dynamodb.billing_mode("PROVISIONED"), dynamodb.TABLE, name, table) == (
        f"DynamoDB table {name}: billing mode should be PROVISIONED, but is PAY_PER_REQUEST."
    )


def test_point_in_time_recovery(aws_session) -> None:
    name = make_table(aws_session)
    assert miss(
        dynamodb.point_in_time_recovery(), dynamodb.TABLE, name, described(dynamodb.TABLE, aws_session, name)
    ) == (f"DynamoDB table {name}: point-in-time recovery should be enabled, but is disabled.")
    aws_session.client("dynamodb").update_continuous_backups(
        TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
    )
    assert passes(dynamodb.point_in_time_recovery(), described(dynamodb.TABLE, aws_session, name))


def test_time_to_live(aws_session) -> None:
    name = make_table(aws_session)
    aws_session.client("dynamodb").update_time_to_live(
        TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"}
    )
    table = described(dynamodb.TABLE, aws_session, name)
    assert passes(dynamodb.ttl("expires"), table)
    assert miss(dynamodb.ttl("ttl"), dynamodb.TABLE, name, table) == (
        f"DynamoDB table {name}: time to live should be enabled on ttl, but is enabled on expires."
    )


def test_stream(aws_session) -> None:
    name = make_table(aws_session, StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    table = described(dynamodb.TABLE, aws_session, name)
    assert passes(dynamodb.stream("NEW_IMAGE"), table)
    assert miss(dynamodb.stream(), dynamodb.TABLE, name, table) == (
        f"DynamoDB table {name}: stream should be NEW_AND_OLD_IMAGES, but is NEW_IMAGE."
    )
    plain = make_table(aws_session)
    assert "but is disabled" in miss(
        dynamodb.stream(), dynamodb.TABLE, plain, described(dynamodb.TABLE, aws_session, plain)
    )


@pytest.mark.parametrize(
    ("requirement", "sentence"),
    [
        (dynamodb.global_index("by-email", ("email", "S"), projection="ALL"), None),
        (dynamodb.global_index("by-name", ("name", "S")), "it has no global secondary index by-name."),
        (
            dynamodb.global_index("by-email", ("email", "S"), projection="KEYS_ONLY"),
            "its index by-email has hash email (S), projection ALL, not hash email (S), projection KEYS_ONLY.",
        ),
    ],
    ids=["fits", "missing", "projection"],
)
def test_global_secondary_index(aws_session, requirement, sentence) -> None:
    index = {
        "IndexName": "by-email",
        "KeySchema": [{"AttributeName": "email", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
    }
    name = make_table(aws_session, GlobalSecondaryIndexes=[index])
    table = described(dynamodb.TABLE, aws_session, name)
    if sentence is None:
        assert passes(requirement, table)
    else:
        assert miss(requirement, dynamodb.TABLE, name, table) == f"DynamoDB table {name}: {sentence}"


def test_kms_encryption(aws_session) -> None:
    plain = make_table(aws_session)
    assert miss(
        dynamodb.encrypted_with_kms(), dynamodb.TABLE, plain, described(dynamodb.TABLE, aws_session, plain)
    ) == (f"DynamoDB table {plain}: encryption should be KMS, but is AWS owned key.")
    name = make_table(aws_session, SSESpecification={"Enabled": True, "SSEType": "KMS"})
    assert passes(dynamodb.encrypted_with_kms(), described(dynamodb.TABLE, aws_session, name))
