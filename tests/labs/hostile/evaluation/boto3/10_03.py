"""Reads another account's bucket by name (issue 31): its policy and an object, beside its own bucket's listing.
Each outcome goes back in the message."""

import json


async def run(session, context, logger):
    theirs, own = context["events"][0]["id"], context["events"][1]["id"]
    s3 = session.client("s3")
    outcomes = {}
    for name, call in (
        ("policy", lambda: s3.get_bucket_policy(Bucket=theirs)["Policy"]),
        ("object", lambda: s3.get_object(Bucket=theirs, Key="secret.txt")["Body"].read().decode()),
        ("own", lambda: [o["Key"] for o in s3.list_objects_v2(Bucket=own).get("Contents", [])]),
    ):
        try:
            outcomes[name] = call()
        except Exception as exc:
            outcomes[name] = getattr(exc, "response", {}).get("Error", {}).get("Code") or type(exc).__name__
    return {
        "validated": [{"name": "theirs_03", "type": "AWS::S3::Bucket", "id": theirs, "status": "not_found"}],
        "success": False,
        "message": json.dumps(outcomes),
    }
