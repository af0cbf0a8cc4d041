"""Step 02.02: the site bucket's policy lets the distribution (by its origin access control) read, and nobody else."""

import json

from botocore.exceptions import ClientError


async def run(session, context, logger):
    handles = {h["name"]: h["id"] for h in context["resolved"]}
    try:
        bucket = handles["01_01_bucket"]
        distribution = session.client("cloudfront").get_distribution(Id=handles["02_01_distribution"])
        read = {
            "Sid": "AllowCloudFrontServicePrincipalReadOnly",
            "Effect": "Allow",
            "Principal": {"Service": "cloudfront.amazonaws.com"},
            "Action": "s3:GetObject",
            "Resource": f"arn:aws:s3:::{bucket}/*",
            "Condition": {"StringEquals": {"AWS:SourceArn": distribution["Distribution"]["ARN"]}},
        }
        policy = json.dumps({"Version": "2012-10-17", "Statement": [read]})
        session.client("s3").put_bucket_policy(Bucket=bucket, Policy=policy)
        return {
            "success": True,
            "resources": [{"name": "02_02_bucket_policy", "type": "AWS::S3::BucketPolicy", "id": bucket}],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
