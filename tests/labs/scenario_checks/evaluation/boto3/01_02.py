"""Wrong on purpose: passes whenever 01.01's bucket exists, without looking at its policy."""

from botocore.exceptions import ClientError


async def run(session, context, logger):
    bucket = next((h["id"] for h in context["resolved"] if h["name"] == "01_01_bucket"), None)
    try:
        if bucket is not None:
            session.client("s3").head_bucket(Bucket=bucket)
    except ClientError:
        bucket = None
    if bucket is None:
        return {
            "validated": [{"name": "01_02_policy", "type": "AWS::S3::BucketPolicy", "id": None, "status": "not_found"}],
            "success": False,
            "message": "no bucket",
            "failure_context": {"step": "01.02", "issue": "The bucket from 01.01 is gone.", "hint_context": "bucket"},
        }
    return {
        "validated": [{"name": "01_02_policy", "type": "AWS::S3::BucketPolicy", "id": bucket, "status": "found"}],
        "success": True,
        "message": "policy assumed",
    }
