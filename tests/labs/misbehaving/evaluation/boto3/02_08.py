"""Returns a result holding a datetime, which JSON cannot carry."""

import datetime


async def run(session, context, logger):
    return {
        "validated": [{"name": "02_08_bucket", "type": "AWS::S3::Bucket", "id": "b", "status": "found"}],
        "success": True,
        "message": "ok",
        "checked_at": datetime.datetime.now(),
    }
