"""Step 01.01 as the AWS CLI does it (`aws dynamodb create-table ... --billing-mode PAY_PER_REQUEST`), then waits
for the table to be active: another path to the same table, and it must pass too."""

import asyncio

from botocore.exceptions import ClientError


async def run(session, context, logger):
    try:
        dynamodb = session.client("dynamodb")
        dynamodb.create_table(
            TableName="items",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
            Tags=[{"Key": "created-by", "Value": "aws-cli"}],
        )
        for _ in range(30):
            if dynamodb.describe_table(TableName="items")["Table"]["TableStatus"] == "ACTIVE":
                break
            await asyncio.sleep(1)
        return {"success": True, "resources": [{"name": "01_01_table", "type": "AWS::DynamoDB::Table", "id": "items"}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
