"""The read-only guard: which operations are reads, and a SandboxSession that refuses every other one."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import boto3
import pytest
from botocore.config import Config
from moto import mock_aws

from harness.account import Credentials, SandboxSpec
from harness.netguard import is_loopback
from harness.readonly import ALLOWED_READS, DENIED_READS, ReadOnlyGuard, WriteRefused, is_read
from harness.sandbox import SandboxFactory, SandboxSession

REGION = "us-east-1"
BUCKET = "guarded-bucket"
SPEC = SandboxSpec(Credentials("testing", "testing"), REGION, None)

# --- is_read ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("service", "operation"),
    [
        ("ec2", "DescribeVpcs"),
        ("s3", "GetBucketPolicy"),
        ("s3", "ListBuckets"),
        ("s3", "HeadBucket"),
        ("iam", "ListRoles"),
        ("elbv2", "DescribeLoadBalancers"),
        ("dynamodb", "BatchGetItem"),
        ("cloudtrail", "LookupEvents"),
    ],
)
def test_prefixed_operations_are_reads(service: str, operation: str) -> None:
    assert is_read(service, operation) is True


@pytest.mark.parametrize(
    ("service", "operation"),
    [
        ("s3", "CreateBucket"),
        ("s3", "PutBucketPolicy"),
        ("s3", "DeleteBucket"),
        ("ec2", "ModifyVpcAttribute"),
        ("dynamodb", "UpdateItem"),
        ("iam", "AttachRolePolicy"),
        ("ec2", "AuthorizeSecurityGroupIngress"),
        ("ec2", "RunInstances"),
        ("ec2", "TerminateInstances"),
        ("ec2", "CreateVpc"),
        ("sts", "AssumeRole"),
        # a prefix must start the name: "Describe" in the middle does not make a read
        ("ec2", "UndescribeThing"),
    ],
)
def test_writes_are_not_reads(service: str, operation: str) -> None:
    assert is_read(service, operation) is False


@pytest.mark.parametrize(
    ("service", "operation"),
    [
        ("sts", "GetSessionToken"),
        ("sts", "GetFederationToken"),
        ("ecr", "GetAuthorizationToken"),
        ("redshift", "GetClusterCredentials"),
        ("sqs", "ReceiveMessage"),
    ],
)
def test_deny_list_refuses_read_like_operations(service: str, operation: str) -> None:
    assert f"{service}:{operation}" in DENIED_READS
    assert is_read(service, operation) is False


def test_deny_list_is_per_service() -> None:
    # ecr's GetAuthorizationToken mints a docker login; a same-named operation elsewhere is judged by prefix
    assert is_read("ecr", "GetAuthorizationToken") is False
    assert is_read("someservice", "GetAuthorizationToken") is True


@pytest.mark.parametrize(("service", "operation"), [("dynamodb", "Query"), ("dynamodb", "Scan")])
def test_allow_list_admits_reads_without_a_prefix(service: str, operation: str) -> None:
    assert f"{service}:{operation}" in ALLOWED_READS
    assert is_read(service, operation) is True


def test_allow_list_is_per_service() -> None:
    assert is_read("dynamodb", "Scan") is True
    assert is_read("inspector2", "Scan") is False


def test_deny_and_allow_lists_do_not_overlap() -> None:
    assert not (DENIED_READS & ALLOWED_READS)


# --- the guard on a SandboxSession, against moto in-process -----------------------------------------------


@pytest.fixture
def mocked() -> Iterator[None]:
    """An in-process moto account holding one bucket, seeded with a plain (unguarded) boto3 client."""
    with mock_aws():
        boto3.client("s3", region_name=REGION).create_bucket(Bucket=BUCKET)
        yield


@pytest.fixture
def session(mocked: None) -> SandboxSession:
    return SandboxSession(SPEC, ReadOnlyGuard())


def plain(service: str):  # boto3 clients are untyped
    return boto3.client(service, region_name=REGION)


def test_put_bucket_policy_is_refused_and_recorded(session: SandboxSession) -> None:
    policy = {"Version": "2012-10-17", "Statement": []}
    with pytest.raises(WriteRefused) as caught:
        session.client("s3").put_bucket_policy(Bucket=BUCKET, Policy=json.dumps(policy))
    assert caught.value.operation == "s3:PutBucketPolicy"
    assert "refused s3:PutBucketPolicy: evaluation code may only read" in str(caught.value)
    assert session.guard.refused == ["s3:PutBucketPolicy"]
    # nothing reached the account
    with pytest.raises(plain("s3").exceptions.ClientError) as err:
        plain("s3").get_bucket_policy(Bucket=BUCKET)
    assert err.value.response["Error"]["Code"] == "NoSuchBucketPolicy"


def test_create_vpc_is_refused_and_no_vpc_appears(session: SandboxSession) -> None:
    ec2 = session.client("ec2")
    before = {v["VpcId"] for v in ec2.describe_vpcs()["Vpcs"]}
    with pytest.raises(WriteRefused, match=r"refused ec2:CreateVpc"):
        ec2.create_vpc(CidrBlock="10.20.0.0/16")
    after = {v["VpcId"] for v in ec2.describe_vpcs()["Vpcs"]}
    assert after == before
    assert "10.20.0.0/16" not in {v["CidrBlock"] for v in plain("ec2").describe_vpcs()["Vpcs"]}
    assert session.guard.refused == ["ec2:CreateVpc"]


def test_resource_delete_is_refused_and_the_bucket_stays(session: SandboxSession) -> None:
    with pytest.raises(WriteRefused, match=r"refused s3:DeleteBucket"):
        session.resource("s3").Bucket(BUCKET).delete()
    assert BUCKET in [b["Name"] for b in plain("s3").list_buckets()["Buckets"]]
    assert session.guard.refused == ["s3:DeleteBucket"]


def test_a_swallowed_refusal_is_still_recorded(session: SandboxSession) -> None:
    s3 = session.client("s3")
    for operation in (lambda: s3.create_bucket(Bucket="second"), lambda: s3.delete_bucket(Bucket=BUCKET)):
        with contextlib.suppress(WriteRefused):
            operation()
    assert session.guard.refused == ["s3:CreateBucket", "s3:DeleteBucket"]


def test_reads_work(session: SandboxSession) -> None:
    assert [b["Name"] for b in session.client("s3").list_buckets()["Buckets"]] == [BUCKET]
    session.client("s3").head_bucket(Bucket=BUCKET)
    vpcs = session.client("ec2").describe_vpcs()["Vpcs"]
    assert vpcs and all(v["VpcId"].startswith("vpc-") for v in vpcs)
    assert [b.name for b in session.resource("s3").buckets.all()] == [BUCKET]
    assert session.guard.refused == []


def test_client_cache_per_service_and_region(session: SandboxSession) -> None:
    s3 = session.client("s3")
    assert session.client("s3") is s3
    assert session.client("s3", region_name=REGION) is s3
    other_region = session.client("s3", region_name="eu-west-1")
    assert other_region is not s3
    assert other_region.meta.region_name == "eu-west-1"
    assert session.client("s3", region_name="eu-west-1") is other_region
    assert session.client("ec2") is not s3


def test_client_with_explicit_config_is_still_guarded(session: SandboxSession) -> None:
    s3 = session.client("s3", config=Config(retries={"max_attempts": 1}))
    assert s3 is not session.client("s3")
    with pytest.raises(WriteRefused, match=r"refused s3:DeleteBucket"):
        s3.delete_bucket(Bucket=BUCKET)
    assert BUCKET in [b["Name"] for b in plain("s3").list_buckets()["Buckets"]]
    assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == [BUCKET]


def test_client_with_other_region_is_guarded(session: SandboxSession) -> None:
    ec2 = session.client("ec2", region_name="eu-west-1")
    with pytest.raises(WriteRefused, match=r"refused ec2:CreateVpc"):
        ec2.create_vpc(CidrBlock="10.30.0.0/16")


def test_session_carries_the_spec(session: SandboxSession) -> None:
    assert session.region_name == REGION
    frozen = session.get_credentials().get_frozen_credentials()
    assert (frozen.access_key, frozen.secret_key, frozen.token) == ("testing", "testing", None)


def test_factory_reuses_the_session_and_clears_refused(mocked: None) -> None:
    factory = SandboxFactory()
    first = factory.open(SPEC)
    with pytest.raises(WriteRefused):
        first.client("s3").delete_bucket(Bucket=BUCKET)
    assert first.guard.refused == ["s3:DeleteBucket"]
    again = factory.open(SandboxSpec(Credentials("testing", "testing"), REGION, None))
    assert again is first
    assert again.guard.refused == []


def test_factory_switches_the_session_to_other_credentials(mocked: None) -> None:
    factory = SandboxFactory()
    first = factory.open(SPEC)
    first_s3 = first.client("s3")
    other = factory.open(SandboxSpec(Credentials("AKIAOTHER", "other-secret", "tok"), REGION, None))
    # one session per worker: the account is switched, not the session
    frozen = other.get_credentials().get_frozen_credentials()
    assert (frozen.access_key, frozen.token) == ("AKIAOTHER", "tok")
    assert other.client("s3") is not first_s3
    # and back again: the first account's clients were dropped, not kept
    assert factory.open(SPEC).client("s3") is not first_s3


def test_factory_switches_the_session_to_another_region(mocked: None) -> None:
    factory = SandboxFactory()
    first = factory.open(SPEC)
    first_region = first.region_name
    other = factory.open(SandboxSpec(SPEC.credentials, "eu-west-1", None))
    assert first_region == REGION and other.region_name == "eu-west-1"
    assert other.client("s3").meta.region_name == "eu-west-1"


# --- netguard ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("localhost", True),
        ("LOCALHOST", True),
        (b"127.0.0.1", True),
        ("10.0.0.1", False),
        ("169.254.169.254", False),
        ("example.com", False),
        ("s3.amazonaws.com", False),
        ("0.0.0.0", False),
    ],
)
def test_is_loopback(host: str | bytes, loopback: bool) -> None:
    assert is_loopback(host) is loopback
