from botocore.exceptions import ClientError


async def run(session, context, logger):
    try:
        s3 = session.client("s3")
        where = {}
        if session.region_name != "us-east-1":
            where = {"CreateBucketConfiguration": {"LocationConstraint": session.region_name}}
        s3.create_bucket(Bucket="drafts-site", **where)
        s3.put_bucket_versioning(Bucket="drafts-site", VersioningConfiguration={"Status": "Enabled"})
        s3.put_bucket_tagging(Bucket="drafts-site", Tagging={"TagSet": [{"Key": "team", "Value": "web"}]})
        return {"success": True, "resources": [{"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": "drafts-site"}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
