"""The site bucket's policy lets the distribution read its objects (cloudfront.amazonaws.com from the distribution)
and nobody else: no public read, no other distribution."""

from harness.kit import cloudfront, s3
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        bucket = step.input("01_01_bucket", s3.BUCKET)
        distribution = step.input("02_01_distribution", cloudfront.DISTRIBUTION)
        step.find("02_02_bucket_policy", s3.BUCKET_POLICY, [
            s3.on_bucket(bucket),
            s3.readable_only_by(distribution),
        ])  # fmt: skip
    return step.result()
