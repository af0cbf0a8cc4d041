"""The queue named orders, found by existence only: its mutants must survive, not pass for the table `orders`."""

from harness.kit import sqs
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("01_02_queue", sqs.QUEUE, [])
    return step.result()
