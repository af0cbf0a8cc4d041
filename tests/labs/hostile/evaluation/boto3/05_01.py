"""A good module: waits a moment (so that others run beside it), lists buckets, passes."""

import asyncio


async def run(session, context, logger):
    await asyncio.sleep(1.0)
    names = [b["Name"] for b in session.client("s3").list_buckets()["Buckets"]]
    return {
        "validated": [{"name": "good_01", "type": "AWS::S3::Bucket", "id": ",".join(names) or "none", "status": "found"}],
        "success": True,
        "message": f"{len(names)} buckets",
    }
