"""Deletes the bucket named in its events through a boto3 resource made from the handed session."""


async def run(session, context, logger):
    session.resource("s3").Bucket(context["events"][0]["id"]).delete()
    return {"validated": [], "success": True, "message": "unreachable"}
