from botocore.exceptions import ClientError


async def run(session, context, logger):
    try:
        session.client("dynamodb").create_table(
            TableName="drafts-items",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
            BillingMode="PAY_PER_REQUEST",
            Tags=[{"Key": "team", "Value": "data"}],
        )
        return {"success": True, "resources": [{"name": "01_02_table", "type": "AWS::DynamoDB::Table", "id": "drafts-items"}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
