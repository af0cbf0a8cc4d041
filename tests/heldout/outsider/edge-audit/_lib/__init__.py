"""Helpers the outsider's edge-audit scenarios share (plain boto3, as a learner would call it)."""

import json
import uuid

CLOUDFRONT_ZONE = "Z2FDTNDATAQYW2"  # the hosted zone id every CloudFront alias target uses


def doc(*statements):
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def all_of(*words):
    """A pattern the issue matches only when it names every word (any order, any case)."""
    return "(?is)^" + "".join(f"(?=.*{w})" for w in words)


def account(aws):
    return aws.client("sts").get_caller_identity()["Account"]


def bucket(aws, name):
    """A bucket in the session's region (S3 wants a LocationConstraint everywhere but us-east-1)."""
    s3 = aws.client("s3")
    if aws.region_name == "us-east-1":
        s3.create_bucket(Bucket=name)
    else:
        s3.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": aws.region_name})
    return name


def key(aws, *, description="edge-audit site key", alias=None, **args):
    kms = aws.client("kms")
    key_id = kms.create_key(Description=description, **args)["KeyMetadata"]["KeyId"]
    if alias:
        kms.create_alias(AliasName=alias, TargetKeyId=key_id)
    return key_id


def sse_kms(aws, name, key_id=None, *, algorithm="aws:kms", bucket_key=True):
    default = {"SSEAlgorithm": algorithm}
    if key_id:
        default["KMSMasterKeyID"] = key_id
    rule = {"ApplyServerSideEncryptionByDefault": default}
    if algorithm != "AES256":
        rule["BucketKeyEnabled"] = bucket_key
    aws.client("s3").put_bucket_encryption(Bucket=name, ServerSideEncryptionConfiguration={"Rules": [rule]})


def zone(aws, letter):
    zones = aws.client("ec2").describe_availability_zones()["AvailabilityZones"]
    return next(z["ZoneName"] for z in zones if z["ZoneName"].endswith(letter))


def reference():
    return str(uuid.uuid4())


def distribution_arn(aws, distribution_id):
    if distribution_id.startswith("arn:"):
        return distribution_id
    return f"arn:aws:cloudfront::{account(aws)}:distribution/{distribution_id}"


def oac(aws, name="site-oac", behavior="always", protocol="sigv4"):
    return aws.client("cloudfront").create_origin_access_control(
        OriginAccessControlConfig={
            "Name": name,
            "Description": "",
            "SigningProtocol": protocol,
            "SigningBehavior": behavior,
            "OriginAccessControlOriginType": "s3",
        }
    )["OriginAccessControl"]["Id"]


def distribution(
    aws,
    domain,
    *,
    control=None,
    identity="",
    root="index.html",
    viewer="redirect-to-https",
    enabled=True,
    website=False,
    comment="edge-audit site",
):
    """A distribution with one origin `domain` (a bucket's REST endpoint unless `website`)."""
    origin = {"Id": "site", "DomainName": domain}
    if website:
        origin["CustomOriginConfig"] = {"HTTPPort": 80, "HTTPSPort": 443, "OriginProtocolPolicy": "http-only"}
    else:
        origin["S3OriginConfig"] = {"OriginAccessIdentity": identity}
        if control:
            origin["OriginAccessControlId"] = control
    config = {
        "CallerReference": reference(),
        "Comment": comment,
        "Enabled": enabled,
        "Origins": {"Quantity": 1, "Items": [origin]},
        "DefaultCacheBehavior": {
            "TargetOriginId": "site",
            "ViewerProtocolPolicy": viewer,
            "CachePolicyId": "658327ea-f89d-4fab-a63d-7e88639e58f6",  # Managed-CachingOptimized
        },
    }
    if root is not None:
        config["DefaultRootObject"] = root
    made = aws.client("cloudfront").create_distribution(DistributionConfig=config)["Distribution"]
    return made["Id"], made["DomainName"]


def rest_endpoint(name):
    return f"{name}.s3.amazonaws.com"
