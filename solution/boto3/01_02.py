"""Step 01.02: a bucket policy that lets everyone read every object, not blocked by the public access block."""

import json

from botocore.exceptions import ClientError

OPEN = {"BlockPublicAcls": False, "IgnorePublicAcls": False, "BlockPublicPolicy": False, "RestrictPublicBuckets": False}


async def run(session, context, logger):
    bucket = next(h["id"] for h in context["resolved"] if h["name"] == "01_01_bucket")
    read = {
        "Sid": "PublicRead",
        "Effect": "Allow",
        "Principal": "*",
        "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/*",
    }
    try:
        s3 = session.client("s3")
        s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration=OPEN)
        s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [read]}))
        return {"success": True, "resources": [{"name": "01_02_policy", "type": "AWS::S3::BucketPolicy", "id": bucket}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
