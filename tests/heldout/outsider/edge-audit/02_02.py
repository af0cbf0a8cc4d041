"""Outsider: step 02.02 (the bucket policy: only the distribution may read the site's objects)."""

from harness.authoring.scenarios import mistake

from ._lib import account, all_of, bucket, distribution_arn, doc

# Ambiguous to me: whether granting the distribution more than s3:GetObject (s3:ListBucket, for 403-vs-404 answers)
# is "lets the distribution read its objects"; no state here relies on it.


OTHER_SOURCE = (
    "(also lets cloudfront\\S* from arn:aws:cloudfront::|(other|another|any|every)\\s+(source|distribution|account)"
    "|SourceArn)"
)
"""The issue says CloudFront may read from another source (another distribution or account) too."""


def _read(bucket_name, condition, *, sid="AllowCloudFrontServicePrincipal", resource=None):
    return {
        "Sid": sid,
        "Effect": "Allow",
        "Principal": {"Service": "cloudfront.amazonaws.com"},
        "Action": "s3:GetObject",
        "Resource": resource or f"arn:aws:s3:::{bucket_name}/*",
        **({"Condition": condition} if condition else {}),
    }


def _put(aws, bucket_name, *statements):
    aws.client("s3").put_bucket_policy(Bucket=bucket_name, Policy=doc(*statements))


def _from(arn, operator="StringEquals"):
    return {operator: {"AWS:SourceArn": arn}}


@mistake(expect="pass")
def right_console_policy(aws, handles):
    """Right: the policy the CloudFront console offers to copy (StringEquals AWS:SourceArn = the distribution)."""
    site = handles["01_01_bucket"]
    _put(aws, site, _read(site, _from(distribution_arn(aws, handles["02_01_distribution"]))))


@mistake(expect="pass")
def equivalent_arn_like_with_tls_deny(aws, handles):
    """Equivalent: ArnLike on aws:SourceArn (lower case key), action as a list, plus a Deny of any request not over
    TLS (aws:SecureTransport false)."""
    site = handles["01_01_bucket"]
    arn = distribution_arn(aws, handles["02_01_distribution"])
    read = _read(site, {"ArnLike": {"aws:SourceArn": arn}}, sid="CloudFrontRead")
    read["Action"] = ["s3:GetObject"]
    deny = {
        "Sid": "TlsOnly",
        "Effect": "Deny",
        "Principal": "*",
        "Action": "s3:*",
        "Resource": [f"arn:aws:s3:::{site}", f"arn:aws:s3:::{site}/*"],
        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }
    _put(aws, site, read, deny)


@mistake(expect="pass")
def right_beside_a_public_scratch_bucket_policy(aws, handles):
    """Decoy first: a scratch bucket edge-audit-scratch with a public-read policy (the learner's test), then the
    right policy on the site bucket. Must pass, resolving the site bucket's policy."""
    scratch = bucket(aws, "edge-audit-scratch")
    aws.client("s3").put_public_access_block(
        Bucket=scratch,
        PublicAccessBlockConfiguration={
            "BlockPublicAcls": False,
            "IgnorePublicAcls": False,
            "BlockPublicPolicy": False,
            "RestrictPublicBuckets": False,
        },
    )
    public = {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{scratch}/*"}
    _put(aws, scratch, public)
    site = handles["01_01_bucket"]
    _put(aws, site, _read(site, _from(distribution_arn(aws, handles["02_01_distribution"]))))


@mistake(issue=all_of("cloudfront", "(does not|doesn't|not allow|no statement|cover|E2OLDDIST0001)"))
def policy_names_another_distribution(aws, handles):
    """Mis-wired: aws:SourceArn names E2OLDDIST0001 (the learner's earlier distribution), not this one."""
    site = handles["01_01_bucket"]
    _put(aws, site, _read(site, _from(f"arn:aws:cloudfront::{account(aws)}:distribution/E2OLDDIST0001")))


@mistake(issue=all_of("(everyone|public|anonymous|anyone|Principal.{0,4}\\*)", "(GetObject|read)"))
def public_read_kept_beside(aws, handles):
    """Cause: a PublicRead statement (Principal *) stays beside the CloudFront one: everyone may read the objects."""
    site = handles["01_01_bucket"]
    public = {
        "Sid": "PublicRead",
        "Effect": "Allow",
        "Principal": "*",
        "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{site}/*",
    }
    _put(aws, site, _read(site, _from(distribution_arn(aws, handles["02_01_distribution"]))), public)


@mistake(
    issue=all_of(
        "cloudfront",
        OTHER_SOURCE,
    )
)
def no_source_condition(aws, handles):
    """Cause: cloudfront.amazonaws.com may read with no condition: any distribution (of any account) could."""
    site = handles["01_01_bucket"]
    _put(aws, site, _read(site, None))


@mistake(
    issue=all_of(
        "cloudfront",
        OTHER_SOURCE,
    )
)
def only_source_account(aws, handles):
    """Cause: the condition is aws:SourceAccount = the account: every distribution of the account may read."""
    site = handles["01_01_bucket"]
    _put(aws, site, _read(site, {"StringEquals": {"AWS:SourceAccount": account(aws)}}))


@mistake(
    issue=all_of(
        "cloudfront",
        OTHER_SOURCE,
    )
)
def wildcard_distribution(aws, handles):
    """Cause: aws:SourceArn is ArnLike arn:aws:cloudfront::ACCOUNT:distribution/* (any distribution of the
    account)."""
    site = handles["01_01_bucket"]
    _put(aws, site, _read(site, _from(f"arn:aws:cloudfront::{account(aws)}:distribution/*", "ArnLike")))


@mistake(issue=all_of("cloudfront", "GetObject", "(does not|doesn't|not allow|no statement|cover)"))
def resource_is_the_bucket_not_its_objects(aws, handles):
    """Cause: the statement's Resource is the bucket ARN (no /*), so s3:GetObject on objects is not granted."""
    site = handles["01_01_bucket"]
    arn = distribution_arn(aws, handles["02_01_distribution"])
    _put(aws, site, _read(site, _from(arn), resource=f"arn:aws:s3:::{site}"))


@mistake(issue=all_of("cloudfront", "(does not|doesn't|not allow|no statement|cover|origin-access-control)"))
def source_arn_is_the_origin_access_control(aws, handles):
    """Mis-wired: aws:SourceArn names the origin access control's ARN instead of the distribution's."""
    site = handles["01_01_bucket"]
    cloudfront = aws.client("cloudfront")
    controls = cloudfront.list_origin_access_controls()["OriginAccessControlList"].get("Items", [])
    control = controls[0]["Id"] if controls else "E3OACNOTFOUND"
    _put(aws, site, _read(site, _from(f"arn:aws:cloudfront::{account(aws)}:origin-access-control/{control}")))


@mistake(issue=all_of("(bucket|policy)", "(edge-audit-scratch|no (bucket )?policy|missing|not found)"))
def policy_put_on_the_scratch_bucket(aws, handles):
    """Near miss beside a decoy: the right statement, but put on a scratch bucket edge-audit-scratch (its Resource
    naming the scratch bucket); the site bucket has no policy."""
    scratch = bucket(aws, "edge-audit-scratch")
    _put(aws, scratch, _read(scratch, _from(distribution_arn(aws, handles["02_01_distribution"]))))


@mistake(issue=all_of("cloudfront", "(does not let|doesn't let|den(y|ies)|Deny)"))
def deny_that_shuts_out_the_distribution(aws, handles):
    """Mis-wired: beside the right Allow, a Deny of s3:GetObject to everyone whose aws:SourceArn is not
    E2OLDDIST0001 (copied from the older distribution's policy): it denies this distribution too."""
    site = handles["01_01_bucket"]
    deny = {
        "Sid": "OnlyCloudFront",
        "Effect": "Deny",
        "Principal": "*",
        "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{site}/*",
        "Condition": {
            "StringNotEquals": {"aws:SourceArn": f"arn:aws:cloudfront::{account(aws)}:distribution/E2OLDDIST0001"}
        },
    }
    _put(aws, site, _read(site, _from(distribution_arn(aws, handles["02_01_distribution"]))), deny)


@mistake(issue=all_of("(111122223333|account|everyone|also lets)", "GetObject"))
def partner_account_may_read_too(aws, handles):
    """Cause: beside the CloudFront statement, the account 111122223333 (a partner, for a test) may s3:GetObject."""
    site = handles["01_01_bucket"]
    partner = {
        "Sid": "PartnerRead",
        "Effect": "Allow",
        "Principal": {"AWS": "arn:aws:iam::111122223333:root"},
        "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{site}/*",
    }
    _put(aws, site, _read(site, _from(distribution_arn(aws, handles["02_01_distribution"]))), partner)
