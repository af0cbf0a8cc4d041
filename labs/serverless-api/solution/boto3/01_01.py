"""Step 01.01: a DynamoDB table keyed by the string attribute pk, billed on demand."""

from botocore.exceptions import ClientError


async def run(session, context, logger):
    try:
        session.client("dynamodb").create_table(
            TableName="items",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        return {"success": True, "resources": [{"name": "01_01_table", "type": "AWS::DynamoDB::Table", "id": "items"}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
