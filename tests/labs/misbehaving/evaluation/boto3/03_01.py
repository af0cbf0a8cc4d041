"""Every S3 call answers 403 AccessDenied (injected below botocore's parser, as AWS would send it)."""

from harness.sandbox.faults import inject_error


async def run(session, context, logger):
    s3 = session.client("s3")  # the cached client: the harness must undo this handler afterwards
    inject_error(s3, "AccessDenied", status=403, message="Access Denied")
    s3.head_bucket(Bucket="any")
    return {"validated": [], "success": True, "message": "unreachable"}
