"""Step 01.01: a symmetric customer managed key, and the site's bucket encrypted with it (SSE-KMS, a Bucket Key)."""

from botocore.exceptions import ClientError

BUCKET = "edge-audit-site"


async def run(session, context, logger):
    try:
        key = session.client("kms").create_key(Description="edge-audit", KeySpec="SYMMETRIC_DEFAULT")["KeyMetadata"]
        s3 = session.client("s3")
        where = {} if session.region_name == "us-east-1" else {"LocationConstraint": session.region_name}
        s3.create_bucket(Bucket=BUCKET, **({"CreateBucketConfiguration": where} if where else {}))
        default = {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": key["Arn"]}
        s3.put_bucket_encryption(
            Bucket=BUCKET,
            ServerSideEncryptionConfiguration={
                "Rules": [{"ApplyServerSideEncryptionByDefault": default, "BucketKeyEnabled": True}]
            },
        )
        return {
            "success": True,
            "resources": [
                {"name": "01_01_key", "type": "AWS::KMS::Key", "id": key["KeyId"]},
                {"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": BUCKET},
            ],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
