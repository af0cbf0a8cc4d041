"""Create a queue named orders-dlq and make it the dead-letter queue of orders after 5 receives."""

from harness.kit import sqs
from harness.kit.require import require
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        queue = step.input("01_01_queue", sqs.QUEUE)
        arn = step.input_value("01_01_queue_arn")
        step.check(
            "01_01_queue_arn", "the queue's ARN", arn == queue["QueueArn"], expected=queue["QueueArn"], actual=arn
        )
        dlq = step.find(
            "01_02_dlq", sqs.QUEUE, [require("name", "orders-dlq", lambda q: q["QueueUrl"].rsplit("/", 1)[-1])]
        )
        if dlq is not None:
            step.check("01_01_queue", "dead-letter queue", sqs.dead_letter_queue(dlq, 5).evaluate(queue).ok,
                       expected=f"{dlq['QueueArn']} after 5 receives", actual=queue.get("RedrivePolicy"))  # fmt: skip
    return step.result()
