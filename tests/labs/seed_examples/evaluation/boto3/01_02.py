"""Objective 01, step 02: allow public read of the bucket's objects with a bucket policy.

The seed contract's second worked example, kept as written: it re-verifies the prior bucket, then checks
the policy by hand (an exact-match check that misses "s3:*", "s3:Get*" and {"AWS": ["*"]}: the kit does better).
"""

import json

from botocore.exceptions import ClientError

STEP = "01.02"
INPUT_NAME = "01_01_bucket"
INPUT_TYPE = "AWS::S3::Bucket"
OUTPUT_NAME = "01_02_policy"
OUTPUT_TYPE = "AWS::S3::BucketPolicy"


def _failure(validated, message, issue, hint):
    return {
        "validated": validated,
        "success": False,
        "message": message,
        "failure_context": {"step": STEP, "issue": issue, "hint_context": hint},
    }


def _is_public_read(statement, bucket_name):
    principal = statement.get("Principal")
    actions = statement.get("Action")
    if isinstance(actions, str):
        actions = [actions]
    resources = statement.get("Resource")
    if isinstance(resources, str):
        resources = [resources]
    return (
        statement.get("Effect") == "Allow"
        and (principal == "*" or principal == {"AWS": "*"})
        and "s3:GetObject" in (actions or [])
        and f"arn:aws:s3:::{bucket_name}/*" in (resources or [])
    )


async def run(session, context, logger):
    s3 = session.client("s3")

    # 1. The prior step's bucket must still be there: fail early if it is gone.
    bucket_name = next(
        (
            handle["id"]
            for handle in context.get("resolved", [])
            if handle["name"] == INPUT_NAME and handle["type"] == INPUT_TYPE
        ),
        None,
    )
    bucket_entry = {"name": INPUT_NAME, "type": INPUT_TYPE, "id": bucket_name, "status": "not_found"}
    policy_entry = {"name": OUTPUT_NAME, "type": OUTPUT_TYPE, "id": None, "status": "not_found"}
    if bucket_name is None:
        return _failure(
            [bucket_entry, policy_entry],
            "The bucket from the previous step is missing.",
            "The S3 bucket from step 01.01 has not been validated yet.",
            "Complete step 01.01 first: create the S3 bucket.",
        )
    try:
        s3.head_bucket(Bucket=bucket_name)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in ("404", "NoSuchBucket", "NotFound"):
            return _failure(
                [bucket_entry, policy_entry],
                "The bucket from the previous step is missing.",
                f"The S3 bucket {bucket_name} from step 01.01 no longer exists.",
                "Recreate the S3 bucket from step 01.01, then add its policy.",
            )
        raise
    bucket_entry["status"] = "found"

    # 2. The policy: a resolved handle first, else this step's events (its id is the bucket name).
    policy_ids = [
        handle["id"]
        for handle in context.get("resolved", [])
        if handle["name"] == OUTPUT_NAME and handle["type"] == OUTPUT_TYPE
    ] or [event["id"] for event in context.get("events", []) if event["type"] == OUTPUT_TYPE]
    if bucket_name not in policy_ids:
        policy_ids.append(bucket_name)

    for policy_bucket in policy_ids:
        if policy_bucket != bucket_name:
            continue
        try:
            document = s3.get_bucket_policy(Bucket=policy_bucket)["Policy"]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "NoSuchBucketPolicy":
                logger.info("bucket %s has no policy", policy_bucket)
                continue
            raise
        try:
            statements = json.loads(document).get("Statement", [])
        except ValueError:
            statements = []
        if isinstance(statements, dict):
            statements = [statements]
        if any(_is_public_read(statement, bucket_name) for statement in statements):
            policy_entry.update(id=bucket_name, status="found")
            return {
                "validated": [bucket_entry, policy_entry],
                "success": True,
                "message": f"Bucket {bucket_name} allows public read of its objects.",
            }
        return _failure(
            [bucket_entry, policy_entry],
            "The bucket policy does not grant public read access.",
            f"The policy on {bucket_name} does not allow s3:GetObject to everyone on its objects.",
            "Add a statement that allows s3:GetObject for Principal * on arn:aws:s3:::BUCKET/*.",
        )

    return _failure(
        [bucket_entry, policy_entry],
        "No bucket policy was found.",
        f"The bucket {bucket_name} has no bucket policy.",
        "Attach a bucket policy that allows public read of the bucket's objects.",
    )
