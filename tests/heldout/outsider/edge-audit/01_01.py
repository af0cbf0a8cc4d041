"""Outsider: step 01.01 (the lab's key and the site's bucket)."""

from harness.authoring.scenarios import mistake

from ._lib import all_of, bucket, key, sse_kms

SITE = "edge-audit-site-outsider"


@mistake(expect="pass")
def right_key_arn_and_bucket_key(aws, handles):
    """Right: a symmetric customer key, the site bucket SSE-KMS under its ARN with an S3 Bucket Key."""
    key_id = key(aws)
    arn = aws.client("kms").describe_key(KeyId=key_id)["KeyMetadata"]["Arn"]
    sse_kms(aws, bucket(aws, SITE), arn)


@mistake(expect="pass")
def equivalent_alias_name_beside_older_sse_s3_bucket(aws, handles):
    """Equivalent: the bucket names the key by its alias (alias/edge-audit); decoy first: an older bucket
    edge-audit-site-v0 left on SSE-S3 (AES256). Must pass, resolving the new bucket."""
    old = bucket(aws, "edge-audit-site-v0")
    sse_kms(aws, old, algorithm="AES256")
    key(aws, alias="alias/edge-audit")
    sse_kms(aws, bucket(aws, SITE), "alias/edge-audit")


@mistake(expect="pass")
def equivalent_alias_arn_beside_disabled_older_key(aws, handles):
    """Equivalent: the bucket names the key by its alias ARN; decoy first: an older key the learner disabled.
    Must pass, resolving the key the bucket uses (the newer one)."""
    kms = aws.client("kms")
    older = key(aws, description="first try")
    kms.disable_key(KeyId=older)
    key(aws, alias="alias/edge-audit-site")
    alias_arn = next(a["AliasArn"] for a in kms.list_aliases()["Aliases"] if a["AliasName"] == "alias/edge-audit-site")
    sse_kms(aws, bucket(aws, SITE), alias_arn)


@mistake(issue=all_of(SITE, "(SSE-KMS|aws:kms|KMS|AES256|SSE-S3|encrypt)"))
def bucket_left_on_sse_s3(aws, handles):
    """Cause: the bucket edge-audit-site-outsider keeps SSE-S3 (AES256), not SSE-KMS with the lab's key."""
    key(aws)
    sse_kms(aws, bucket(aws, SITE), algorithm="AES256")


@mistake(issue=all_of(SITE, "(DSSE|aws:kms:dsse|dual)"))
def bucket_on_dsse_kms(aws, handles):
    """Cause: the bucket edge-audit-site-outsider is DSSE-KMS (aws:kms:dsse), which the step rules out."""
    key_id = key(aws)
    sse_kms(aws, bucket(aws, SITE), key_id, algorithm="aws:kms:dsse", bucket_key=False)


@mistake(issue=all_of(SITE, "bucket.?key"))
def no_bucket_key(aws, handles):
    """Cause: the bucket edge-audit-site-outsider is SSE-KMS with the lab's key but without an S3 Bucket Key."""
    key_id = key(aws)
    sse_kms(aws, bucket(aws, SITE), key_id, bucket_key=False)


@mistake(issue=all_of(SITE, "(key|kms)", "(aws/s3|managed|lab|customer|01_01_key|not)"))
def bucket_under_the_aws_managed_key(aws, handles):
    """Cause: the bucket edge-audit-site-outsider is SSE-KMS with no key chosen (the AWS managed aws/s3 key), not
    the customer key the learner created."""
    key(aws)
    sse_kms(aws, bucket(aws, SITE))


@mistake(issue=all_of(SITE, "(key|kms)", "(aws/s3|managed|lab|customer|01_01_key|not)"))
def bucket_names_aws_s3_alias_explicitly(aws, handles):
    """Cause: the bucket edge-audit-site-outsider names alias/aws/s3 (the console's "AWS managed key" choice)."""
    key(aws, alias="alias/edge-audit")
    sse_kms(aws, bucket(aws, SITE), "alias/aws/s3")


@mistake(issue=all_of("(key|kms)", "(symmetric|SYMMETRIC_DEFAULT|RSA|spec)"))
def asymmetric_key(aws, handles):
    """Cause: the lab's key is an asymmetric RSA_2048 encryption key, not a symmetric one (S3 cannot use it)."""
    key_id = key(aws, KeySpec="RSA_2048", KeyUsage="ENCRYPT_DECRYPT")
    sse_kms(aws, bucket(aws, SITE), key_id)


@mistake(issue=all_of(SITE, "bucket.?key"))
def no_bucket_key_beside_a_scratch_bucket(aws, handles):
    """Near miss beside a decoy: a scratch bucket edge-audit-scratch on SSE-S3, then the site bucket
    edge-audit-site-outsider under the lab's key but without a Bucket Key: the issue names the site bucket."""
    sse_kms(aws, bucket(aws, "edge-audit-scratch"), algorithm="AES256")
    key_id = key(aws, alias="alias/edge-audit")
    sse_kms(aws, bucket(aws, SITE), key_id, bucket_key=False)


@mistake(expect="pass")
def equivalent_multi_region_key(aws, handles):
    """Equivalent: a multi-Region primary key (still a symmetric customer managed key), named by its key id."""
    key_id = key(aws, MultiRegion=True)
    sse_kms(aws, bucket(aws, SITE), key_id)
