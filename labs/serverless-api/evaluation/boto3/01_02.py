"""Create an IAM role that only Lambda (lambda.amazonaws.com) may assume, allowed to do exactly dynamodb:GetItem
and dynamodb:PutItem on the table, and nothing else."""

from harness.kit import dynamodb, iam
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        table = step.input("01_01_table", dynamodb.TABLE)
        step.find("01_02_role", iam.ROLE, [
            iam.trusted_only_by("lambda.amazonaws.com"),
            iam.may_only(["dynamodb:GetItem", "dynamodb:PutItem"], [table], key="TableArn"),
        ])  # fmt: skip
    return step.result()
