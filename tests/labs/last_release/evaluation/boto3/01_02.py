"""Attach a bucket policy that lets everyone read the bucket's objects, and make sure the bucket's public
access block does not block public policies."""

from harness.kit import s3
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        bucket = step.input("01_01_bucket", s3.BUCKET)
        step.find("01_02_policy", s3.BUCKET_POLICY, [
            s3.grants_public_read(bucket["Name"]),
            s3.public_policies_allowed(),
        ])
    return step.result()
