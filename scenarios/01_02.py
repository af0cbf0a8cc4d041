"""Step 01.02: the mistakes learners make with the public-read bucket policy (solution/boto3/01_02.py solves it;
the mutants its evaluator rightly accepts are marked in solution/equivalent.yaml)."""

import json

from harness.authoring.scenarios import mistake

OPEN = {"BlockPublicAcls": False, "IgnorePublicAcls": False, "BlockPublicPolicy": False, "RestrictPublicBuckets": False}


def _public_read(bucket, **extra):
    return {
        "Effect": "Allow",
        "Principal": "*",
        "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/*",
        **extra,
    }


def _attach(aws, bucket, *statements, block=OPEN):
    s3 = aws.client("s3")
    s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration=block)
    policy = {"Version": "2012-10-17", "Statement": list(statements)}
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(policy))


@mistake(expect="pass")
def every_s3_action(aws, handles):
    bucket = handles["01_01_bucket"]
    _attach(aws, bucket, _public_read(bucket, Action="s3:*"))


@mistake(expect="pass")
def https_enforced_too(aws, handles):
    bucket = handles["01_01_bucket"]
    https_only = {
        "Sid": "HttpsOnly",
        "Effect": "Deny",
        "Principal": "*",
        "Action": "s3:*",
        "Resource": [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"],
        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }
    _attach(aws, bucket, _public_read(bucket), https_only)


@mistake(issue=r"(?i)condition")
def grant_with_a_condition(aws, handles):
    bucket = handles["01_01_bucket"]
    _attach(aws, bucket, _public_read(bucket, Condition={"IpAddress": {"aws:SourceIp": "203.0.113.0/24"}}))


@mistake(issue=r"(?i)deny")
def deny_cancels_the_grant(aws, handles):
    bucket = handles["01_01_bucket"]
    deny = {"Effect": "Deny", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{bucket}/*"}
    _attach(aws, bucket, _public_read(bucket), deny)


@mistake(issue=r"(?i)only some objects")
def only_one_prefix(aws, handles):
    bucket = handles["01_01_bucket"]
    _attach(aws, bucket, _public_read(bucket, Resource=f"arn:aws:s3:::{bucket}/public/*"))


@mistake(issue=r"(?i)everyone|principal")
def one_account_only(aws, handles):
    bucket = handles["01_01_bucket"]
    _attach(aws, bucket, _public_read(bucket, Principal={"AWS": "arn:aws:iam::123456789012:root"}))


@mistake(after_solve=True, issue=r"(?i)public access block")
def public_access_block_blocks_policies(aws, handles):
    block = {**OPEN, "BlockPublicPolicy": True, "RestrictPublicBuckets": True}
    aws.client("s3").put_public_access_block(Bucket=handles["01_01_bucket"], PublicAccessBlockConfiguration=block)


@mistake(issue=r"(?i)no longer exists")
def bucket_deleted(aws, handles):
    aws.client("s3").delete_bucket(Bucket=handles["01_01_bucket"])
