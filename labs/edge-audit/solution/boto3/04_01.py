"""Step 04.01: a log bucket CloudTrail may write to, and a logging multi-Region trail with log file validation."""

import json

from botocore.exceptions import ClientError

BUCKET = "edge-audit-trail-logs"
TRAIL = "edge-audit"


async def run(session, context, logger):
    try:
        account = session.client("sts").get_caller_identity()["Account"]
        trail_arn = f"arn:aws:cloudtrail:{session.region_name}:{account}:trail/{TRAIL}"
        service = {"Service": "cloudtrail.amazonaws.com"}
        source = {"StringEquals": {"aws:SourceArn": trail_arn}}
        statements = [
            {"Sid": "AWSCloudTrailAclCheck", "Effect": "Allow", "Principal": service, "Action": "s3:GetBucketAcl",
             "Resource": f"arn:aws:s3:::{BUCKET}", "Condition": source},
            {"Sid": "AWSCloudTrailWrite", "Effect": "Allow", "Principal": service, "Action": "s3:PutObject",
             "Resource": f"arn:aws:s3:::{BUCKET}/AWSLogs/{account}/*",
             "Condition": {"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control", **source["StringEquals"]}}},
        ]  # fmt: skip
        s3 = session.client("s3")
        where = {} if session.region_name == "us-east-1" else {"LocationConstraint": session.region_name}
        s3.create_bucket(Bucket=BUCKET, **({"CreateBucketConfiguration": where} if where else {}))
        s3.put_bucket_policy(Bucket=BUCKET, Policy=json.dumps({"Version": "2012-10-17", "Statement": statements}))
        cloudtrail = session.client("cloudtrail")
        cloudtrail.create_trail(Name=TRAIL, S3BucketName=BUCKET, IsMultiRegionTrail=True, EnableLogFileValidation=True)
        cloudtrail.start_logging(Name=TRAIL)
        return {
            "success": True,
            "resources": [
                {"name": "04_01_bucket", "type": "AWS::S3::Bucket", "id": BUCKET},
                {"name": "04_01_trail", "type": "AWS::CloudTrail::Trail", "id": TRAIL},
            ],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
