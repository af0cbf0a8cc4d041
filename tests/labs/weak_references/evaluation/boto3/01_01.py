"""The table named orders."""

from harness.kit import dynamodb
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("01_01_table", dynamodb.TABLE, [dynamodb.keys(("pk", "S"))])
    return step.result()
