"""Held-out mistakes of web-tier step 01.02, with decoys (see tests/heldout/README.md)."""

import json

from harness.authoring.scenarios import mistake


def _heldout_policy(aws, bucket, resource, action="s3:GetObject"):
    s3 = aws.client("s3")
    s3.put_public_access_block(
        Bucket=bucket,
        PublicAccessBlockConfiguration={
            k: False for k in ("BlockPublicAcls", "IgnorePublicAcls", "BlockPublicPolicy", "RestrictPublicBuckets")
        },
    )
    statement = {"Effect": "Allow", "Principal": "*", "Action": action, "Resource": resource}
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [statement]}))


@mistake(issue=r"(?i)bucket policy on web-tier-site")
def heldout_bucket_arn_without_objects_after_a_scratch_policy(aws, handles):
    aws.client("s3").create_bucket(Bucket="heldout-scratch")
    _heldout_policy(aws, "heldout-scratch", "arn:aws:s3:::heldout-scratch/*")  # a right policy, on another bucket
    bucket = handles["01_01_bucket"]
    _heldout_policy(aws, bucket, f"arn:aws:s3:::{bucket}")
