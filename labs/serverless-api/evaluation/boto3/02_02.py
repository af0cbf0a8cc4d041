"""Create the function's log group (/aws/lambda/FUNCTION) with a retention of 14 days, and let the role write
to it (logs:CreateLogStream and logs:PutLogEvents on the group's log streams), and nothing more: the role still
does only what step 01.02 asked on the table."""

from harness.kit import awslambda, dynamodb, iam, logs
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        table = step.input("01_01_table", dynamodb.TABLE)
        function = step.input("02_01_function", awslambda.FUNCTION)
        group = logs.function_log_group(function)
        step.find("02_02_log_group", logs.LOG_GROUP, [logs.named(group), logs.retention(14)])
        step.find("01_02_role", iam.ROLE, [
            iam.may_exactly(
                iam.grant(["dynamodb:GetItem", "dynamodb:PutItem"], [table], key="TableArn"),
                iam.grant(["logs:CreateLogStream", "logs:PutLogEvents"], [logs.streams_arn(function, group)]),
            ),
        ])  # fmt: skip
    return step.result()
