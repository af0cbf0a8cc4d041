"""Step 01.01: a versioned S3 bucket for the site's files."""

from botocore.exceptions import ClientError

BUCKET = "web-tier-site"


async def run(session, context, logger):
    try:
        s3 = session.client("s3")
        where = {}
        if session.region_name != "us-east-1":  # us-east-1 is the one region that takes no location constraint
            where = {"CreateBucketConfiguration": {"LocationConstraint": session.region_name}}
        s3.create_bucket(Bucket=BUCKET, **where)
        s3.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Enabled"})
        logger.info("bucket %s is versioned", BUCKET)
        return {"success": True, "resources": [{"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": BUCKET}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
