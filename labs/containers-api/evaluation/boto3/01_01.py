"""Create an ECR repository for the API's images, whose tags are immutable and whose images are scanned on push (by
the repository's own setting, or by a registry scanning rule that covers it)."""

from harness.kit import ecr
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("01_01_repository", ecr.REPOSITORY, [ecr.immutable_tags(), ecr.scan_on_push()])
    return step.result()
