"""Create an S3 bucket for the site's files and enable versioning on it."""

from harness.kit import s3
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("01_01_bucket", s3.BUCKET, [s3.versioning_enabled()])
    return step.result()
