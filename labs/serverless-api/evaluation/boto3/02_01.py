"""Create a Python 3.12 Lambda function with handler app.handler, running as the role, with the table's name in
the environment variable TABLE_NAME."""

from harness.kit import awslambda, dynamodb, iam
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        table = step.input("01_01_table", dynamodb.TABLE)
        role = step.input("01_02_role", iam.ROLE)
        step.find("02_01_function", awslambda.FUNCTION, [
            awslambda.runtime("python3.12"),
            awslambda.handler("app.handler"),
            awslambda.execution_role(role),
            awslambda.environment(TABLE_NAME=table["TableName"]),
        ])  # fmt: skip
    return step.result()
