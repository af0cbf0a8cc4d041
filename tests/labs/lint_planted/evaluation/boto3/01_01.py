"""Clean: reads only, through the handed session, names only its own handle."""


async def run(session, context, logger):
    session.client("s3").list_buckets()
    return {"validated": [{"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
            "success": False, "message": "", "failure_context": {"step": "01.01", "issue": "", "hint_context": ""}}


def tidy(cache):
    cache.delete()  # stepeval: ignore
