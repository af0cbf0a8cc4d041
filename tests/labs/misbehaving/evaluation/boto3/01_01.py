"""Puts a public bucket policy on the bucket named in its events: the guard must refuse it."""

import json


async def run(session, context, logger):
    bucket = context["events"][0]["id"]
    policy = {"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:*", "Resource": "*"}]}
    session.client("s3").put_bucket_policy(Bucket=bucket, Policy=json.dumps(policy))
    return {"validated": [], "success": True, "message": "unreachable"}
