"""Step 01.01: the mistakes learners make with the table (solution/boto3/01_01.py and 01_01_cli.py solve it)."""

from harness.authoring.scenarios import mistake


def _table(aws, key="pk", key_type="S", *, on_demand=True, sort_key=None):
    schema = [{"AttributeName": key, "KeyType": "HASH"}]
    attributes = [{"AttributeName": key, "AttributeType": key_type}]
    if sort_key:
        schema.append({"AttributeName": sort_key, "KeyType": "RANGE"})
        attributes.append({"AttributeName": sort_key, "AttributeType": "S"})
    billing = {"BillingMode": "PAY_PER_REQUEST"}
    if not on_demand:
        capacity = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
        billing = {"BillingMode": "PROVISIONED", "ProvisionedThroughput": capacity}
    aws.client("dynamodb").create_table(TableName="items", KeySchema=schema, AttributeDefinitions=attributes, **billing)


@mistake(issue=r"(?i)primary key")
def keyed_by_id(aws, handles):
    _table(aws, key="id")


@mistake(issue=r"(?i)primary key")
def numeric_key(aws, handles):
    _table(aws, key_type="N")


@mistake(issue=r"(?i)primary key")
def with_a_sort_key(aws, handles):
    _table(aws, sort_key="created")


@mistake(issue=r"(?i)billing mode")
def provisioned_capacity(aws, handles):
    _table(aws, on_demand=False)
