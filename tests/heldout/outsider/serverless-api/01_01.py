"""Outsider: step 01.01 (the table)."""

from harness.authoring.scenarios import mistake

from ._lib import all_of


@mistake(issue=all_of("items", "(billing|PAY_PER_REQUEST|on.demand)"))
def provisioned_billing(aws, handles):
    """Cause: table items is billed PROVISIONED (the learner kept the console's default capacity)."""
    aws.client("dynamodb").create_table(
        TableName="items",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
    )


@mistake(issue=all_of("items", "(sort|range|key)"))
def sort_key_added(aws, handles):
    """Cause: table items has a sort key sk besides pk (the step says no sort key)."""
    aws.client("dynamodb").create_table(
        TableName="items",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )


@mistake(issue=all_of("items", "(string|type| S\\b|\\bN\\b|number)"))
def pk_is_a_number(aws, handles):
    """Cause: table items's partition key pk is a Number (N), not a string."""
    aws.client("dynamodb").create_table(
        TableName="items",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "N"}],
        BillingMode="PAY_PER_REQUEST",
    )


@mistake(expect="pass")
def right_table_beside_older_wrong_attempt(aws, handles):
    """Decoy first: items-v0 keyed by id (provisioned), then the right table items. Must pass, resolving items."""
    ddb = aws.client("dynamodb")
    ddb.create_table(
        TableName="items-v0",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
    )
    ddb.create_table(
        TableName="items",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )


@mistake(expect="pass")
def equivalent_provisioned_then_switched_on_demand(aws, handles):
    """Equivalent: created provisioned, then switched to on-demand with UpdateTable (plus a tag, PITR on)."""
    ddb = aws.client("dynamodb")
    ddb.create_table(
        TableName="items",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        Tags=[{"Key": "team", "Value": "api"}],
    )
    ddb.update_table(TableName="items", BillingMode="PAY_PER_REQUEST")
    ddb.update_continuous_backups(
        TableName="items", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
    )


@mistake(expect="pass")
def right_table_then_a_scratch_table_after(aws, handles):
    """Decoy after: the right table items, then a scratch items-copy keyed by id (number), provisioned. Must pass."""
    ddb = aws.client("dynamodb")
    ddb.create_table(
        TableName="items",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    ddb.create_table(
        TableName="items-copy",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "N"}],
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
    )
