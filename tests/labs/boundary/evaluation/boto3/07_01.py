"""A good module: waits a moment, lists buckets, passes with the first one's name."""

import asyncio

from ._lib import result


async def run(session, context, logger):
    await asyncio.sleep(0.5)
    buckets = [b["Name"] for b in session.client("s3").list_buckets()["Buckets"]]
    return {"validated": [{"name": "good_01", "type": "AWS::S3::Bucket", "id": buckets[0], "status": "found"}],
            "success": True, "message": "good"}
