"""S3 validators: the bucket (versioning, encryption, public access block) and its policy (IAM semantics)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from botocore.exceptions import ClientError

from harness.kit import grants, kms, refs
from harness.kit.aws import error_code
from harness.kit.kinds import Kind, LazyResource, Resource, register
from harness.kit.later import later
from harness.kit.policy import PolicyError, PolicyVerdict, grants_public_read_of_objects, parse_policy
from harness.kit.require import Requirement, attribute, missing_requirement, require

DEFAULT_KEY = "alias/aws/s3"
"""The AWS managed key SSE-KMS uses when the bucket's default encryption names none."""

NO_PUBLIC_ACCESS_BLOCK = {
    "BlockPublicAcls": False,
    "IgnorePublicAcls": False,
    "BlockPublicPolicy": False,
    "RestrictPublicBuckets": False,
}


def _bucket_extras(session: Any, name: str) -> dict[str, Any]:
    s3 = session.client("s3")

    def versioning() -> str:
        return s3.get_bucket_versioning(Bucket=name).get("Status", "Disabled")

    read: list[list[dict[str, Any]]] = []  # the default encryption rules, read once

    def defaults() -> list[dict[str, Any]]:
        if not read:
            try:
                rules = s3.get_bucket_encryption(Bucket=name)["ServerSideEncryptionConfiguration"]["Rules"]
            except ClientError as error:
                if error_code(error) != "ServerSideEncryptionConfigurationNotFoundError":
                    raise
                rules = []
            read.append(
                [
                    {**r["ApplyServerSideEncryptionByDefault"], "BucketKeyEnabled": r.get("BucketKeyEnabled")}
                    for r in rules
                ]
            )
        return read[0]

    def encryption() -> list[str]:
        return [d["SSEAlgorithm"] for d in defaults()]

    def encryption_key() -> str | None:
        """The KMS key of SSE-KMS by default (none named: the AWS managed key aws/s3), else None."""
        kms_rules = [d for d in defaults() if d["SSEAlgorithm"].startswith("aws:kms")]
        return (kms_rules[0].get("KMSMasterKeyID") or DEFAULT_KEY) if kms_rules else None

    def bucket_key() -> bool:
        """Whether SSE-KMS by default uses an S3 Bucket Key (fewer calls to KMS)."""
        return any(d["SSEAlgorithm"].startswith("aws:kms") and d.get("BucketKeyEnabled") for d in defaults())

    def public_access_block() -> dict[str, bool]:
        try:
            return s3.get_public_access_block(Bucket=name)["PublicAccessBlockConfiguration"]
        except ClientError as error:
            if error_code(error) == "NoSuchPublicAccessBlockConfiguration":
                return dict(NO_PUBLIC_ACCESS_BLOCK)
            raise

    return {
        "Versioning": versioning,
        "Encryption": encryption,
        "EncryptionKey": encryption_key,
        "BucketKey": bucket_key,
        "PublicAccessBlock": public_access_block,
    }


def _account_block(session: Any) -> dict[str, bool]:
    """The account's public access block (S3 Control), which applies to every bucket beside each one's own."""
    account = session.client("sts").get_caller_identity()["Account"]
    try:
        return session.client("s3control").get_public_access_block(AccountId=account)["PublicAccessBlockConfiguration"]
    except ClientError as error:
        if error_code(error) in ("NoSuchPublicAccessBlockConfiguration", "NoSuchPublicAccessBlock"):
            return dict(NO_PUBLIC_ACCESS_BLOCK)
        raise


def _fetch_bucket(session: Any, name: str) -> Resource:
    s3 = session.client("s3")
    s3.head_bucket(Bucket=name)

    def policy() -> str | None:
        """The bucket's policy (JSON text), None when it has none: the kit's policy requirements read it here too."""
        try:
            return str(s3.get_bucket_policy(Bucket=name)["Policy"])
        except ClientError as error:
            if error_code(error) == "NoSuchBucketPolicy":
                return None
            raise

    return LazyResource({"Name": name}, {**_bucket_extras(session, name), "Policy": policy})


def _fetch_policy(session: Any, bucket: str) -> Resource:
    s3 = session.client("s3")
    document = s3.get_bucket_policy(Bucket=bucket)["Policy"]
    return LazyResource({"Bucket": bucket, "Policy": document}, _bucket_extras(session, bucket))


BUCKET = register(Kind("AWS::S3::Bucket", "S3 bucket", _fetch_bucket))
"""`{"Name"}` plus `Versioning` (`"Enabled"`, `"Suspended"`, `"Disabled"`), `Encryption` (the default algorithms:
`["aws:kms"]`), `EncryptionKey` (SSE-KMS's key, else None), `BucketKey` (a boolean), `PublicAccessBlock` (its four
flags), `Policy` (the bucket policy's JSON text, None without one: `grants` and `cloudtrail_may_write` read it on a
bucket as on a bucket policy), each read when first used."""
BUCKET_POLICY = register(Kind("AWS::S3::BucketPolicy", "bucket policy", _fetch_policy, naming="bucket policy on {id}"))
"""`{"Bucket", "Policy": JSON text}` plus what `BUCKET` reads of the bucket, each read when first used."""


@later
def on_bucket(bucket: Resource | str | None) -> Requirement:
    """A bucket policy on the bucket `bucket` (a described bucket, its name or ARN)."""
    return refs.refers("S3 bucket", refs.BUCKET, bucket, lambda policy: policy.get("Bucket"))


def versioning_enabled() -> Requirement:
    """Versioning status `Enabled` (not Suspended, not never set)."""
    return attribute("versioning", "Versioning", "Enabled", hint="Enable versioning in the bucket's properties.")


def encrypted(algorithm: str | None = None) -> Requirement:
    """Default encryption configured (with `algorithm` if given: `AES256` is SSE-S3, `aws:kms` SSE-KMS and
    `aws:kms:dsse` DSSE-KMS, each only itself: DSSE-KMS is not the SSE-KMS a lab asks for, it costs more and takes
    no S3 Bucket Key)."""
    return require(
        "default encryption",
        algorithm or "configured",
        lambda bucket: bucket["Encryption"],
        compare=lambda actual, expected: bool(actual) and (expected == "configured" or expected in actual),
        hint=f"Set the bucket's default encryption to {algorithm}." if algorithm else None,
    )


@later
def encrypted_with(key: Resource | str | None) -> Requirement:
    """Default encryption is SSE-KMS (or DSSE-KMS) with the KMS key: a described key, its id or ARN, an alias or
    alias ARN, whichever the bucket was given on either side (none given: `alias/aws/s3`, the AWS managed key)."""
    return refs.refers("KMS key", kms.KEY_REFERENCE, key, lambda bucket: bucket["EncryptionKey"])


def bucket_key(enabled: bool = True) -> Requirement:
    """Default SSE-KMS encryption uses an S3 Bucket Key (the bucket's own data key, so far fewer calls to KMS); with
    `enabled=False`, it does not. Without SSE-KMS there is no Bucket Key."""
    return require("S3 Bucket Key", enabled, lambda bucket: bool(bucket["BucketKey"]))


BLOCKS = ("BlockPublicAcls", "IgnorePublicAcls", "BlockPublicPolicy", "RestrictPublicBuckets")


def _effective_block(resource: Resource) -> dict[str, str | None]:
    """Each public access block setting in effect and where it is set (the bucket's or the account's block: either
    one applies), None where neither sets it. The account's is asked once per evaluation (none is known without
    one: a requirement evaluated by hand sees the bucket's alone)."""
    bucket = resource["PublicAccessBlock"]
    account = refs.current().ask("s3 account public access block", _account_block, NO_PUBLIC_ACCESS_BLOCK)
    return {flag: "bucket" if bucket.get(flag) else "account" if account.get(flag) else None for flag in BLOCKS}


def public_policies_allowed() -> Requirement:
    """Neither the bucket's public access block nor the account's blocks public policies or restricts public
    buckets (either level would make a public policy ineffective)."""
    return require(
        "public access block",
        "not blocking public policies",
        _effective_block,
        compare=lambda block, _: not block["BlockPublicPolicy"] and not block["RestrictPublicBuckets"],
        explain=lambda block: (
            ("its" if (block["BlockPublicPolicy"] or block["RestrictPublicBuckets"]) == "bucket" else "the account's")
            + " public access block "
            + ("blocks public policies" if block["BlockPublicPolicy"] else "restricts public buckets")
            + ", so the public policy has no effect."
        ),
        hint="Turn off 'Block public access' for bucket policies on this bucket (BlockPublicPolicy and "
        "RestrictPublicBuckets), and on the account if it is set there.",
    )


def public_access_blocked() -> Requirement:
    """Every public access block setting is on, on the bucket or for the whole account (either way, it applies)."""
    return require(
        "public access block",
        "all four settings on (bucket or account)",
        _effective_block,
        compare=lambda block, _: all(block.values()),
        explain=lambda block: (
            f"{', '.join(flag for flag, where in block.items() if not where)} is off on the bucket and on the account."
        ),
        hint="Turn on 'Block all public access' for the bucket (or for the account).",
    )


@later
def grants_public_read(bucket: Resource | str) -> Requirement:
    """The policy lets everyone s3:GetObject every object of `bucket` (a described bucket, its name or ARN),
    unconditionally, with no Deny in the way: each kind of object its statements tell apart is asked of the policy
    engine (`kit.access`) as an anonymous request."""
    named = refs.BUCKET.read(str(refs.shown(refs.BUCKET, bucket)))
    name = named.name if named else str(bucket)

    def verdict(resource: Resource) -> PolicyVerdict:
        try:
            return grants_public_read_of_objects(parse_policy(resource["Policy"]), name)
        except PolicyError as error:
            return PolicyVerdict(False, f"the policy is not a valid policy document: {error}")

    return require(
        "public read of every object",
        True,
        verdict,
        compare=lambda grant, _: grant.granted,
        explain=lambda grant: grant.reason,
        hint=f"Allow s3:GetObject to Principal * on arn:aws:s3:::{name}/*, with no Condition and no Deny.",
    )


_OAI = "arn:aws:iam::cloudfront:user/CloudFront Origin Access Identity "


def _identities(distribution: Resource | str | None, identity: str | None) -> list[str]:
    """The origin access identities (as principal ARNs) named by `identity` (an id or ARN) or used by the described
    distribution's S3 origins (`origin-access-identity/cloudfront/ID`)."""
    named = [identity] if identity else []
    if isinstance(distribution, Mapping):
        config = distribution.get("Config") or distribution.get("DistributionConfig") or {}
        for origin in (config.get("Origins") or {}).get("Items") or []:
            named.append(((origin.get("S3OriginConfig") or {}).get("OriginAccessIdentity") or "").rpartition("/")[2])
    return [n if n.startswith("arn:") else _OAI + n for n in named if n]


@later
def readable_only_by(distribution: Resource | str | None, *, identity: str | None = None) -> Requirement:
    """Only the CloudFront distribution (a described distribution or its ARN) may s3:GetObject the bucket's objects,
    by origin access control (`cloudfront.amazonaws.com` with the distribution's ARN as `aws:SourceArn`) or by an
    origin access identity (its id or ARN as `identity`, or the one the described distribution's origins use)."""
    source = grants.arn_of(distribution)
    ways = [grants.only_may("cloudfront.amazonaws.com", "s3:GetObject", source=source)]
    ways += [grants.only_may(oai, "s3:GetObject") for oai in _identities(distribution, identity)]

    def finding(bucket: Resource) -> grants.PolicyFinding:
        found = [way.actual(bucket) for way in ways]
        held = next((f for f in found if f.holds), None)
        if held is not None:
            return held
        document = json.dumps(grants.policy_document(bucket) or "")
        mentioned = [f for f, way in zip(found[1:], ways[1:], strict=True) if way.expected in document]
        return (mentioned or found)[0]

    return grants.finding_requirement(
        "readers",
        f"only CloudFront distribution {source}",
        finding,
        hint=f"Allow s3:GetObject on the bucket's objects to cloudfront.amazonaws.com with a Condition that "
        f"aws:SourceArn is {source} (origin access control), and to nobody else.",
    )


ACL_FOR_CLOUDTRAIL = "bucket-owner-full-control"
"""The canned ACL CloudTrail's log writes carry (`s3:x-amz-acl`), giving the bucket's owner the log files."""


@later
def cloudtrail_may_write(
    trail: Resource | str | None = None, *, account: str | None = None, acl_required: bool = False
) -> Requirement:
    """CloudTrail may deliver logs to the bucket: `cloudtrail.amazonaws.com` may s3:GetBucketAcl on it and
    s3:PutObject under `AWSLogs/ACCOUNT/` with the ACL `bucket-owner-full-control` (the header CloudTrail's writes
    carry), from the trail (a described trail or its ARN) when given. ACCOUNT is the trail's, else `account`. With
    `acl_required=True` the policy must also insist on that ACL, as AWS's documented policy does (a Condition
    `s3:x-amz-acl` = `bucket-owner-full-control`): the same write without the header, or with another ACL
    (`private`), must not be allowed. Ask for it where a lab says the bucket lets CloudTrail write "with the ACL"."""
    source = grants.arn_of(trail)
    owner = account or (source.split(":")[4] if source and source.count(":") >= 5 else None)
    if not owner:  # a trail output with no resource, or no trail and no account: nothing names the account
        return missing_requirement(
            require("CloudTrail may write", "cloudtrail.amazonaws.com", lambda _: None),
            "no trail or account it refers to was found",
        )

    def finding(bucket: Resource) -> grants.PolicyFinding:
        arn = grants.arn_of(bucket) or ""
        logs = f"{arn}/AWSLogs/{owner}/*"

        def writes(acl: str | None) -> grants.PolicyFinding:
            context = {"s3:x-amz-acl": acl} if acl else {}
            asked = grants.may("cloudtrail.amazonaws.com", "s3:PutObject", source=source, on=logs, context=context)
            return asked.actual(bucket)

        acl = grants.may("cloudtrail.amazonaws.com", "s3:GetBucketAcl", source=source, on=arn)
        found = [acl.actual(bucket), writes(ACL_FOR_CLOUDTRAIL)]
        failed = next((f for f in found if not f.holds), None)
        if failed is not None or not acl_required:
            return failed or found[1]
        for other, shown in ((None, "without the ACL header"), ("private", "with the ACL private")):
            loose = writes(other)
            if loose.holds:
                return grants.PolicyFinding(
                    False,
                    f"{loose.sentence.removesuffix('.')} {shown}: it should insist on the ACL {ACL_FOR_CLOUDTRAIL} "
                    f"(a Condition s3:x-amz-acl = {ACL_FOR_CLOUDTRAIL}).",
                )
        return found[1]

    return grants.finding_requirement(
        "CloudTrail may write",
        f"cloudtrail.amazonaws.com{f' from {source}' if source else ''}",
        finding,
        hint=f"Allow cloudtrail.amazonaws.com s3:GetBucketAcl on the bucket and s3:PutObject on "
        f"AWSLogs/{owner}/* with the Condition s3:x-amz-acl = {ACL_FOR_CLOUDTRAIL}.",
    )


# --- ARNs --------------------------------------------------------------------------------------------------------


def _bucket_arn(resource: str) -> refs.ArnPart | None:
    """`arn:aws:s3:::BUCKET`: a bucket (`BUCKET/KEY` is read the common way)."""
    return ("bucket", resource, None) if "/" not in resource else None


refs.reads_arns("s3", _bucket_arn)
