"""A bucket from the events exists in this account (two calls: who am I, which buckets)."""

OUTPUT = ("01_01_bucket", "AWS::S3::Bucket")


async def run(session, context, logger):
    session.client("sts").get_caller_identity()
    names = sorted(bucket["Name"] for bucket in session.client("s3").list_buckets()["Buckets"])
    wanted = [event["id"] for event in context["events"] if event["type"] == OUTPUT[1]]
    found = next((name for name in wanted if name in names), None)
    if found is None:
        return {
            "validated": [{"name": OUTPUT[0], "type": OUTPUT[1], "id": None, "status": "not_found"}],
            "success": False,
            "message": f"none of {wanted} exists",
            "failure_context": {"step": "01.01", "issue": "no such bucket", "hint_context": "create the bucket"},
        }
    return {
        "validated": [{"name": OUTPUT[0], "type": OUTPUT[1], "id": found, "status": "found"}],
        "success": True,
        "message": f"{found} exists",
    }
