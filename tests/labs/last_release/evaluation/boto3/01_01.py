"""Create a bucket with versioning enabled."""

from harness.kit import s3
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("01_01_bucket", s3.BUCKET, [s3.versioning_enabled()])
    return step.result()
