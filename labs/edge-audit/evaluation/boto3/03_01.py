"""A topic, a standard queue subscribed to it with raw delivery whose policy lets only the topic send, and a second
standard queue as its dead-letter queue after at most 5 receives."""

from harness.kit import bounds, grants, sns, sqs
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        topic = step.find("03_01_topic", sns.TOPIC, [sns.subscribed("sqs", step.output("03_01_queue"))])
        queues = step.find_all(sqs.QUEUE, {
            "03_01_queue": [
                sqs.fifo(False),
                sqs.dead_letter_queue(step.output("03_01_dead_letter_queue"), max_receives=bounds.between(1, 5)),
                grants.only_may("sns.amazonaws.com", "sqs:SendMessage", source=topic),
            ],
            "03_01_dead_letter_queue": [sqs.fifo(False)],
        })  # fmt: skip
        step.find("03_01_subscription", sns.SUBSCRIPTION, [
            sns.on_topic(topic),
            sns.protocol("sqs"),
            sns.endpoint(queues["03_01_queue"]),
            sns.raw_delivery(),
        ])  # fmt: skip
    return step.result()
