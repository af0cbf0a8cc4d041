"""Create the function's log group (/aws/lambda/FUNCTION) with a retention of 14 days, and let the role write
to it (logs:CreateLogStream and logs:PutLogEvents on the group's log streams)."""

from harness.kit import awslambda, iam, logs
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        function = step.input("02_01_function", awslambda.FUNCTION)
        group = logs.function_log_group(function)
        step.find("02_02_log_group", logs.LOG_GROUP, [logs.named(group), logs.retention(14)])
        streams = logs.streams_arn(function, group)
        step.find("01_02_role", iam.ROLE, [
            iam.may("logs:CreateLogStream", streams),
            iam.may("logs:PutLogEvents", streams),
        ])  # fmt: skip
    return step.result()
