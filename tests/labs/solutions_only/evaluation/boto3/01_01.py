"""Create an SQS queue named orders with a visibility timeout of 60 seconds; give its ARN too."""

from harness.kit import sqs, values
from harness.kit.require import require
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        queue = step.find("01_01_queue", sqs.QUEUE, [
            require("name", "orders", lambda q: q["QueueUrl"].rsplit("/", 1)[-1]),
            sqs.visibility_timeout(60),
        ])  # fmt: skip
        arn = queue.get("QueueArn") if queue else None
        step.value("01_01_queue_arn", arn, [values.is_arn("sqs")])
    return step.result()
