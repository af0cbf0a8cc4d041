"""Create a symmetric customer managed KMS key, and an S3 bucket for the site whose default encryption is SSE-KMS
(not DSSE-KMS) with that key and an S3 Bucket Key."""

from harness.kit import kms, s3
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        key = step.find("01_01_key", kms.KEY, [
            kms.customer_managed(),
            kms.spec("SYMMETRIC_DEFAULT"),
            kms.usage("ENCRYPT_DECRYPT"),
            kms.usable(),
        ])  # fmt: skip
        step.find("01_01_bucket", s3.BUCKET, [
            s3.encrypted("aws:kms"),
            s3.encrypted_with(key),
            s3.bucket_key(),
        ])  # fmt: skip
    return step.result()
