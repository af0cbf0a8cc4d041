"""Held-out mistakes of web-tier step 01.01, with decoys (see tests/heldout/README.md)."""

from harness.authoring.scenarios import mistake


@mistake(issue=r"S3 bucket heldout-site-files: versioning")
def heldout_unversioned_after_a_scratch_bucket(aws, handles):
    s3 = aws.client("s3")
    s3.create_bucket(Bucket="heldout-scratch-notes")  # an older bucket, not the site's
    s3.create_bucket(Bucket="heldout-site-files")


@mistake(issue=r"S3 bucket heldout-site-files: versioning")
def heldout_suspended_beside_an_older_scratch_bucket(aws, handles):
    s3 = aws.client("s3")
    s3.create_bucket(Bucket="heldout-old-logs")
    s3.put_bucket_versioning(Bucket="heldout-old-logs", VersioningConfiguration={"Status": "Suspended"})
    s3.create_bucket(Bucket="heldout-site-files")
    s3.put_bucket_versioning(Bucket="heldout-site-files", VersioningConfiguration={"Status": "Suspended"})
