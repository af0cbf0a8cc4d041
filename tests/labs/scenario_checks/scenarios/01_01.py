"""Step 01.01's scenarios; `versioned_after_all` and `typo_in_scenario` are wrong on purpose."""

from harness.authoring.scenarios import mistake, solve


def _versioned_bucket(aws, name):
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=name)
    s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})


@solve
def versioned_bucket(aws, handles):
    _versioned_bucket(aws, "checks-site")


@mistake(issue=r"(?i)versioning is not enabled")
def versioning_off(aws, handles):
    aws.client("s3").create_bucket(Bucket="checks-site")


@mistake(expect="pass", events="reversed")
def plain_bucket_first(aws, handles):
    aws.client("s3").create_bucket(Bucket="checks-plain")
    _versioned_bucket(aws, "checks-site")


@mistake(issue=r"(?i)versioning")
def versioned_after_all(aws, handles):
    _versioned_bucket(aws, "checks-site")


@mistake(after_solve=True, issue=r"(?i)no bucket")
def bucket_deleted(aws, handles):
    aws.client("s3").delete_bucket(Bucket="checks-site")


@mistake(issue=r"(?i)versioning")
def typo_in_scenario(aws, handles):
    aws.client("s3").create_bucket(Bucket="Not A Valid Name")
