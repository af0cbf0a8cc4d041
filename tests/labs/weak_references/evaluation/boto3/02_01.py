"""The key."""

from harness.kit import kms
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("02_01_key", kms.KEY, [kms.has_alias("alias/orders")])
    return step.result()
