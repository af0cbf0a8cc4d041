"""Step 01.02's scenarios (its evaluator is the lenient one)."""

import json

from harness.authoring.scenarios import mistake, solve


@solve
def public_read_policy(aws, handles):
    bucket = handles["01_01_bucket"]
    statement = {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{bucket}/*"}
    aws.client("s3").put_bucket_policy(
        Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [statement]})
    )


@mistake(issue=r"(?i)policy")
def no_policy(aws, handles):
    pass
