"""Objective 01, step 01: create an S3 bucket.

The seed contract's first worked example, kept as written: a hand-rolled existence check.
"""

from botocore.exceptions import ClientError

STEP = "01.01"
OUTPUT_NAME = "01_01_bucket"
OUTPUT_TYPE = "AWS::S3::Bucket"


async def run(session, context, logger):
    s3 = session.client("s3")

    # 1. A handle resolved by an earlier evaluation comes first.
    candidates = [
        handle["id"]
        for handle in context.get("resolved", [])
        if handle["name"] == OUTPUT_NAME and handle["type"] == OUTPUT_TYPE
    ]
    # 2. Otherwise search this step's resource events by type.
    if not candidates:
        candidates = [event["id"] for event in context.get("events", []) if event["type"] == OUTPUT_TYPE]

    found = None
    for bucket_name in candidates:
        try:
            s3.head_bucket(Bucket=bucket_name)
        except ClientError as error:
            code = error.response.get("Error", {}).get("Code")
            if code in ("404", "NoSuchBucket", "NotFound"):
                logger.info("bucket %s does not exist", bucket_name)
                continue
            raise
        found = bucket_name
        break

    if found is None:
        return {
            "validated": [{"name": OUTPUT_NAME, "type": OUTPUT_TYPE, "id": None, "status": "not_found"}],
            "success": False,
            "message": "No S3 bucket was found for this step.",
            "failure_context": {
                "step": STEP,
                "issue": "No S3 bucket created in this step exists in your account.",
                "hint_context": "Create an S3 bucket in the lab's region.",
            },
        }

    return {
        "validated": [{"name": OUTPUT_NAME, "type": OUTPUT_TYPE, "id": found, "status": "found"}],
        "success": True,
        "message": f"S3 bucket {found} exists.",
    }
