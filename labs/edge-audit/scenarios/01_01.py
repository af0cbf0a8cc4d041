"""Step 01.01: the mistakes learners make with the key and the site's bucket (solution/boto3/01_01.py solves it)."""

from harness.authoring.scenarios import mistake


def _bucket(aws, name="edge-audit-site"):
    where = aws.region_name
    aws.client("s3").create_bucket(
        Bucket=name, **({} if where == "us-east-1" else {"CreateBucketConfiguration": {"LocationConstraint": where}})
    )
    return name


def _encrypt(aws, bucket, *, algorithm="aws:kms", key=None, bucket_key=True):
    default = {"SSEAlgorithm": algorithm, **({"KMSMasterKeyID": key} if key else {})}
    aws.client("s3").put_bucket_encryption(
        Bucket=bucket,
        ServerSideEncryptionConfiguration={
            "Rules": [{"ApplyServerSideEncryptionByDefault": default, "BucketKeyEnabled": bucket_key}]
        },
    )


def _key(aws, **settings):
    return aws.client("kms").create_key(Description="edge-audit", **settings)["KeyMetadata"]


@mistake(expect="pass")
def key_named_by_an_alias(aws, handles):
    key = _key(aws)
    aws.client("kms").create_alias(AliasName="alias/edge-audit", TargetKeyId=key["KeyId"])
    _encrypt(aws, _bucket(aws), key="alias/edge-audit")


@mistake(expect="pass")
def a_scratch_bucket_beside_the_site(aws, handles):
    """Two buckets and two keys: the encrypted one with its key is the output, whatever the order."""
    _key(aws)
    _bucket(aws, "edge-audit-scratch")
    key = _key(aws)
    _encrypt(aws, _bucket(aws), key=key["Arn"])


@mistake(issue=r"S3 bucket edge-audit-site: default encryption should be aws:kms, but is AES256")
def sse_s3_instead_of_kms(aws, handles):
    _key(aws)
    _encrypt(aws, _bucket(aws), algorithm="AES256", bucket_key=False)


@mistake(issue=r"S3 bucket edge-audit-site: default encryption should be aws:kms, but is aws:kms:dsse")
def dual_layer_kms(aws, handles):
    key = _key(aws)
    _encrypt(aws, _bucket(aws), algorithm="aws:kms:dsse", key=key["Arn"], bucket_key=False)


@mistake(issue=r"S3 bucket edge-audit-site: KMS key should be .*, but is alias/aws/s3")
def the_aws_managed_key(aws, handles):
    _key(aws)
    _encrypt(aws, _bucket(aws))


@mistake(issue=r"S3 bucket edge-audit-site: S3 Bucket Key should be enabled, but is disabled")
def no_bucket_key(aws, handles):
    key = _key(aws)
    _encrypt(aws, _bucket(aws), key=key["Arn"], bucket_key=False)


@mistake(issue=r"KMS key .*: key spec should be SYMMETRIC_DEFAULT, but is RSA_2048")
def an_asymmetric_key(aws, handles):
    key = _key(aws, KeySpec="RSA_2048", KeyUsage="ENCRYPT_DECRYPT")
    _encrypt(aws, _bucket(aws), key=key["Arn"])


@mistake(issue=r"KMS key .*: key state should be Enabled, but is Disabled")
def a_disabled_key(aws, handles):
    key = _key(aws)
    aws.client("kms").disable_key(KeyId=key["KeyId"])
    _encrypt(aws, _bucket(aws), key=key["Arn"])
