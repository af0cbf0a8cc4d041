from harness.authoring.scenarios import solve


@solve
def orders_table(aws, handles):
    aws.client("dynamodb").create_table(
        TableName="orders",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
