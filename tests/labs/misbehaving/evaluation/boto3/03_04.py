"""Lists buckets through the handed session: with a dead endpoint, the connection error escapes."""


async def run(session, context, logger):
    names = [bucket["Name"] for bucket in session.client("s3").list_buckets()["Buckets"]]
    return {
        "validated": [{"name": "03_04_bucket", "type": "AWS::S3::Bucket", "id": ",".join(names) or "none",
                       "status": "found"}],
        "success": True,
        "message": "listed",
    }
