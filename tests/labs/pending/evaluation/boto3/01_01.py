"""Create an enabled CloudFront distribution."""

from harness.kit import cloudfront
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("01_01_distribution", cloudfront.DISTRIBUTION, [cloudfront.enabled()])
    return step.result()
