"""Step 01.01: the mistakes learners make with the versioned bucket (solution/boto3/01_01.py solves it)."""

from harness.authoring.scenarios import mistake

BUCKET = "web-tier-site"


def _bucket(aws, name, *, versioning=None):
    s3 = aws.client("s3")
    where = {}
    if aws.region_name != "us-east-1":  # the one region that takes no location constraint
        where = {"CreateBucketConfiguration": {"LocationConstraint": aws.region_name}}
    s3.create_bucket(Bucket=name, **where)
    if versioning:
        s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": versioning})


@mistake(issue=r"(?i)versioning")
def versioning_never_enabled(aws, handles):
    _bucket(aws, BUCKET)


@mistake(issue=r"(?i)versioning")
def versioning_suspended(aws, handles):
    _bucket(aws, BUCKET, versioning="Enabled")
    aws.client("s3").put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Suspended"})


@mistake(after_solve=True, issue=r"We could not find the S3 bucket \S+ recorded for this step")
def bucket_deleted_afterwards(aws, handles):
    aws.client("s3").delete_bucket(Bucket=BUCKET)


@mistake(expect="pass")
def scratch_bucket_first(aws, handles):
    _bucket(aws, "web-tier-scratch")
    _bucket(aws, BUCKET, versioning="Enabled")


@mistake(expect="pass", events="reversed")
def events_reversed(aws, handles):
    _bucket(aws, "web-tier-scratch")
    _bucket(aws, BUCKET, versioning="Enabled")
