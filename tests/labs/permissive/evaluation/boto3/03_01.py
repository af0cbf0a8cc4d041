"""The role may write the function's logs, checked with `iam.may` only: the planted permissive least-privilege
check (a role that may do more, e.g. `logs:*` or `Resource: *`, still passes) that mutate must catch."""

from harness.kit import iam
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        account = session.client("sts").get_caller_identity()["Account"]
        streams = f"arn:aws:logs:us-east-1:{account}:log-group:/aws/lambda/items:log-stream:*"
        step.find("03_01_role", iam.ROLE, [
            iam.trusts("lambda.amazonaws.com"),
            iam.may("logs:CreateLogStream", streams),
            iam.may("logs:PutLogEvents", streams),
        ])  # fmt: skip
    return step.result()
