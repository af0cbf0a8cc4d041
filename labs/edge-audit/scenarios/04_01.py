"""Step 04.01: the mistakes learners make with the audit bucket and the trail."""

import json

from harness.authoring.scenarios import mistake

TRAIL = "edge-audit"


def _bucket(aws, name):
    where = aws.region_name
    aws.client("s3").create_bucket(
        Bucket=name, **({} if where == "us-east-1" else {"CreateBucketConfiguration": {"LocationConstraint": where}})
    )


def _allow_cloudtrail(aws, bucket, *, prefix=None, acl=True):
    account = aws.client("sts").get_caller_identity()["Account"]
    service = {"Service": "cloudtrail.amazonaws.com"}
    put = {"Sid": "AWSCloudTrailWrite", "Effect": "Allow", "Principal": service, "Action": "s3:PutObject",
           "Resource": f"arn:aws:s3:::{bucket}/{prefix or f'AWSLogs/{account}'}/*",
           "Condition": {"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control"}}}  # fmt: skip
    check = {"Sid": "AWSCloudTrailAclCheck", "Effect": "Allow", "Principal": service, "Action": "s3:GetBucketAcl",
             "Resource": f"arn:aws:s3:::{bucket}"}  # fmt: skip
    statements = [check, put] if acl else [put]
    aws.client("s3").put_bucket_policy(
        Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": statements})
    )


def _trail(aws, bucket, *, multi_region=True, validation=True, start=True, selectors=None, advanced=None):
    cloudtrail = aws.client("cloudtrail")
    cloudtrail.create_trail(Name=TRAIL, S3BucketName=bucket, IsMultiRegionTrail=multi_region,
                            EnableLogFileValidation=validation)  # fmt: skip
    if selectors is not None:
        cloudtrail.put_event_selectors(TrailName=TRAIL, EventSelectors=selectors)
    if advanced is not None:
        cloudtrail.put_event_selectors(TrailName=TRAIL, AdvancedEventSelectors=advanced)
    if start:
        cloudtrail.start_logging(Name=TRAIL)


def _audit(aws, bucket="edge-audit-logs", **trail):
    _bucket(aws, bucket)
    _allow_cloudtrail(aws, bucket)
    _trail(aws, bucket, **trail)


@mistake(expect="pass")
def advanced_selectors_for_management_events(aws, handles):
    _audit(
        aws, advanced=[{"Name": "management", "FieldSelectors": [{"Field": "eventCategory", "Equals": ["Management"]}]}]
    )


@mistake(expect="pass")
def a_scratch_bucket_beside(aws, handles):
    _bucket(aws, "edge-audit-scratch")
    _audit(aws)


@mistake(issue=r"Trail edge-audit: multi-region should be enabled, but is disabled")
def one_region_only(aws, handles):
    _audit(aws, multi_region=False)


@mistake(issue=r"Trail edge-audit: log file validation should be enabled, but is disabled")
def no_log_file_validation(aws, handles):
    _audit(aws, validation=False)


@mistake(issue=r"Trail edge-audit: logging should be enabled, but is disabled")
def never_started(aws, handles):
    _audit(aws, start=False)


@mistake(issue=r"Trail edge-audit: management events should be All, but is WriteOnly")
def write_events_only(aws, handles):
    _audit(aws, selectors=[{"ReadWriteType": "WriteOnly", "IncludeManagementEvents": True}])


@mistake(issue=r"S3 bucket edge-audit-logs: its policy does not let cloudtrail\.amazonaws\.com s3:GetBucketAcl")
def no_acl_check_statement(aws, handles):
    _bucket(aws, "edge-audit-logs")
    _allow_cloudtrail(aws, "edge-audit-logs", acl=False)
    _trail(aws, "edge-audit-logs")


@mistake(issue=r"S3 bucket edge-audit-logs: .*s3:PutObject")
def logs_prefix_of_another_account(aws, handles):
    _bucket(aws, "edge-audit-logs")
    _allow_cloudtrail(aws, "edge-audit-logs", prefix="AWSLogs/111122223333")
    _trail(aws, "edge-audit-logs")


@mistake(
    issue=r"No other S3 bucket created in this step is left for the S3 bucket this step asks for: "
    r"S3 bucket edge-audit-site is the S3 bucket from an earlier step\."
)
def the_site_bucket_keeps_the_logs(aws, handles):
    """`aws s3 mb` on the site's bucket again (us-east-1 answers 200 to its owner), then the trail writes there."""
    _bucket(aws, handles["01_01_bucket"])
    _allow_cloudtrail(aws, handles["01_01_bucket"])
    _trail(aws, handles["01_01_bucket"])
