"""Step 02.02: the mistakes learners make with the site bucket's policy."""

import json

from harness.authoring.scenarios import mistake


def _arn(aws, handles):
    return aws.client("cloudfront").get_distribution(Id=handles["02_01_distribution"])["Distribution"]["ARN"]


def _read(bucket, source=None, principal=None, sid="ReadByTheDistribution"):
    statement = {"Sid": sid, "Effect": "Allow", "Principal": principal or {"Service": "cloudfront.amazonaws.com"},
                 "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{bucket}/*"}  # fmt: skip
    if source:
        statement["Condition"] = {"StringEquals": {"AWS:SourceArn": source}}
    return statement


def _policy(aws, bucket, *statements):
    aws.client("s3").put_bucket_policy(
        Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": list(statements)})
    )


@mistake(expect="pass")
def arn_like_on_the_distribution_and_a_deny_over_http(aws, handles):
    bucket = handles["01_01_bucket"]
    read = _read(bucket)
    read["Condition"] = {"ArnLike": {"aws:SourceArn": _arn(aws, handles)}}
    https = {"Sid": "HttpsOnly", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
             "Resource": [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"],
             "Condition": {"Bool": {"aws:SecureTransport": "false"}}}  # fmt: skip
    _policy(aws, bucket, read, https)


@mistake(issue=r"Bucket policy on edge-audit-site: .*(cloudfront\.amazonaws\.com|another source|other)")
def any_distribution_may_read(aws, handles):
    _policy(aws, handles["01_01_bucket"], _read(handles["01_01_bucket"]))


@mistake(issue=r"Bucket policy on edge-audit-site: .*statement \"Public\".*(everyone|\*)")
def public_read_as_well(aws, handles):
    bucket = handles["01_01_bucket"]
    _policy(aws, bucket, _read(bucket, _arn(aws, handles)), _read(bucket, principal="*", sid="Public"))


@mistake(
    issue=r"Bucket policy on edge-audit-site: .*cloudfront\.amazonaws\.com .*arn:aws:cloudfront::\d+:distribution/\w+"
)
def another_distributions_arn(aws, handles):
    account = aws.client("sts").get_caller_identity()["Account"]
    bucket = handles["01_01_bucket"]
    _policy(aws, bucket, _read(bucket, f"arn:aws:cloudfront::{account}:distribution/EOTHER123"))


@mistake(issue=r"Bucket policy on edge-audit-site: .*s3:GetObject")
def reads_only_the_bucket_not_its_objects(aws, handles):
    bucket = handles["01_01_bucket"]
    read = _read(bucket, _arn(aws, handles))
    read["Resource"] = f"arn:aws:s3:::{bucket}"
    _policy(aws, bucket, read)


@mistake(issue=r"Bucket policy on edge-audit-other: S3 bucket should be edge-audit-site")
def the_policy_on_another_bucket(aws, handles):
    aws.client("s3").create_bucket(Bucket="edge-audit-other")
    _policy(aws, "edge-audit-other", _read("edge-audit-other", _arn(aws, handles)))
