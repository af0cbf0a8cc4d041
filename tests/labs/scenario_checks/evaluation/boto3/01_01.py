"""A versioned bucket. Judges the first bucket event only (so event order is visible); echoes the events."""

import json

from botocore.exceptions import ClientError

NAME, TYPE = "01_01_bucket", "AWS::S3::Bucket"


async def run(session, context, logger):
    s3 = session.client("s3")
    echo = f"events: {json.dumps(context['events'])}"
    buckets = [e["id"] for e in context["events"] if e["type"] == TYPE][:1]
    for bucket in buckets:
        try:
            status = s3.get_bucket_versioning(Bucket=bucket).get("Status")
        except ClientError as error:
            if error.response["Error"]["Code"] == "NoSuchBucket":
                break
            raise
        entry = {"name": NAME, "type": TYPE, "id": bucket, "status": "found"}
        if status != "Enabled":
            return {
                "validated": [entry],
                "success": False,
                "message": echo,
                "failure_context": {
                    "step": "01.01",
                    "issue": f"Versioning is not enabled on {bucket}.",
                    "hint_context": "versioning",
                },
            }
        return {"validated": [entry], "success": True, "message": echo}
    return {
        "validated": [{"name": NAME, "type": TYPE, "id": None, "status": "not_found"}],
        "success": False,
        "message": echo,
        "failure_context": {"step": "01.01", "issue": "No bucket from this step exists.", "hint_context": "create one"},
    }
