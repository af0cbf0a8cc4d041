"""Create a DynamoDB table whose partition key is the string attribute pk (no sort key), billed on demand
(PAY_PER_REQUEST)."""

from harness.kit import dynamodb
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("01_01_table", dynamodb.TABLE, [dynamodb.keys(("pk", "S")), dynamodb.billing_mode("PAY_PER_REQUEST")])
    return step.result()
