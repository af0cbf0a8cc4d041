"""Step 01.02 as 0.1.0's docs taught it."""

import json

from harness.scenarios import mistake, solve


def _policy(aws, bucket, action):
    read = {"Effect": "Allow", "Principal": "*", "Action": action, "Resource": f"arn:aws:s3:::{bucket}/*"}
    aws.client("s3").put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [read]}))


@solve
def public_read(aws, handles):
    _policy(aws, handles["01_01_bucket"], "s3:GetObject")


@mistake(issue=r"no statement allows s3:GetObject")
def put_only(aws, handles):
    _policy(aws, handles["01_01_bucket"], "s3:PutObject")
