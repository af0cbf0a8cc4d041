"""The read-only guard: which operations are reads, and a GatewaySession that refuses every other one."""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Iterator

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from harness.core import netguard
from harness.core.account import Account
from harness.core.botocore_models import find_service_model
from harness.core.netguard import is_loopback
from harness.core.readonly import (
    ALLOWED_READS,
    DENIED_READS,
    READ_PREFIXES,
    REPORT_JOBS,
    SIDE_EFFECT_READS,
    WriteRefused,
    is_read,
    refusal,
)
from harness.core.secret_shapes import secrets_of
from harness.inside.session import GATEWAY_KEY, GATEWAY_SECRET, GatewaySession
from harness.sandbox.gateway import Gateway
from tests.conftest import REGION, MotoAccount, gateway_session

BUCKET = "guarded-bucket"

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
    ],
)
def test_deny_list_refuses_read_like_operations(service: str, operation: str) -> None:
    assert f"{service}:{operation}" in DENIED_READS
    assert is_read(service, operation) is False


@pytest.mark.parametrize(
    ("service", "operation"),
    [
        # found by a hostile author, and not on the deny list until now
        ("connect", "GetFederationToken"),
        ("emr", "GetClusterSessionCredentials"),
        ("lakeformation", "GetTemporaryGlueTableCredentials"),
        ("gamelift", "GetInstanceAccess"),
        # on no list: refused because botocore's model says the answer carries a credential or a secret
        ("lakeformation", "GetTemporaryDataLocationCredentials"),
        ("sso", "GetRoleCredentials"),
        ("datazone", "GetEnvironmentCredentials"),
        ("license-manager", "GetAccessToken"),
        ("sts", "GetDelegatedAccessToken"),
        # issue 25: named for a credential, and answering one at any depth (a list, a nested structure)
        ("cognito-idp", "ListUserPoolClientSecrets"),
        ("emr-containers", "GetManagedEndpointSessionCredentials"),
    ],
)
def test_reads_that_mint_credentials_or_reveal_secrets_are_refused(service: str, operation: str) -> None:
    assert is_read(service, operation) is False


@pytest.mark.parametrize(
    ("service", "operation", "why"),
    [
        ("lightsail", "GetInstanceAccessDetails", "deny list"),
        ("secretsmanager", "GetSecretValue", "deny list"),
        ("datazone", "GetEnvironmentCredentials", "named for a credential"),
        ("account-access-runtime", "GetRoleCredentials", "named for a credential"),
        ("stepfunctions", "GetActivityTask", "side-effect list"),
        ("sqs", "ReceiveMessage", "side-effect list"),
        ("ec2", "CreateVpc", "not named as a read"),
    ],
)
def test_each_refusal_names_its_rule(service: str, operation: str, why: str) -> None:
    reason = refusal(service, operation)
    assert reason is not None and reason.startswith(why), reason
    assert not is_read(service, operation)


def test_side_effect_and_deny_lists_name_real_operations() -> None:
    for name in DENIED_READS | SIDE_EFFECT_READS | ALLOWED_READS:
        service, operation = name.split(":")
        model = find_service_model(service)
        assert model is not None and operation in model.operation_names, name


@pytest.mark.parametrize(
    ("service", "operation", "secrets"),
    [
        # issue 25: read for their settings; the gateway relays them with these members blanked
        ("cognito-idp", "DescribeUserPoolClient", ["UserPoolClient.ClientSecret"]),
        ("lambda", "GetFunction", ["Configuration.Environment.Variables{secret entries}"]),
        ("lambda", "GetFunctionConfiguration", ["Environment.Variables{secret entries}"]),
        ("glue", "GetConnections", ["ConnectionList[].ConnectionProperties{secret entries}"]),
        ("appsync", "ListApiKeys", ["apiKeys[].id"]),
        ("codepipeline", "GetJobDetails", ["jobDetails.data.artifactCredentials.secretAccessKey"]),
        ("ecs", "DescribeTaskDefinition", ["taskDefinition.containerDefinitions[].environment{secret entries}"]),
        ("ec2", "DescribeLaunchTemplateVersions", ["LaunchTemplateVersions[].LaunchTemplateData.UserData"]),
    ],
)
def test_reads_whose_answers_hold_secrets_stay_reads(service: str, operation: str, secrets: list[str]) -> None:
    assert is_read(service, operation) is True
    found = secrets_of(find_service_model(service)).in_output(operation)
    assert all(secret in found for secret in secrets), found


def test_a_unit_named_like_a_token_is_no_secret() -> None:
    """cognito-idp's TokenValidityUnits.AccessToken is an enum of time units, not a token."""
    found = secrets_of(find_service_model("cognito-idp")).in_output("DescribeUserPoolClient")
    assert not any("TokenValidityUnits" in path for path in found), found


@pytest.mark.parametrize(
    ("service", "operation"),
    [
        # settings that merely name a secret (an OIDC listener's masked ClientSecret, a pending master password)
        ("elbv2", "DescribeListeners"),
        ("elbv2", "DescribeRules"),
        ("rds", "DescribeDBInstances"),
        ("secretsmanager", "DescribeSecret"),
        ("lambda", "GetFunction"),
        ("iam", "GetUser"),
        # issue 25: a plain read, and the reads of reports a lab's setup generated
        ("glue", "SearchTables"),
        ("iam", "GetCredentialReport"),
        ("iam", "GetServiceLastAccessedDetails"),
    ],
)
def test_reads_that_only_describe_secrets_stay_reads(service: str, operation: str) -> None:
    assert is_read(service, operation) is True


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


# --- the guard on a GatewaySession, through the gateway to a moto server -----------------------------------


@pytest.fixture
def session(aws: MotoAccount, sandbox: Account, gateway: Gateway) -> Iterator[GatewaySession]:
    """A worker's session for an account holding one bucket (seeded with a plain, unguarded boto3 client)."""
    aws.client("s3").create_bucket(Bucket=BUCKET)
    with gateway_session(gateway, sandbox) as (guarded, _):
        yield guarded


def test_put_bucket_policy_is_refused_and_recorded(session: GatewaySession, aws: MotoAccount) -> None:
    policy = {"Version": "2012-10-17", "Statement": []}
    with pytest.raises(WriteRefused) as caught:
        session.client("s3").put_bucket_policy(Bucket=BUCKET, Policy=json.dumps(policy))
    assert caught.value.operation == "s3:PutBucketPolicy"
    assert "refused s3:PutBucketPolicy: evaluation code may only read" in str(caught.value)
    assert session.guard.refused == ["s3:PutBucketPolicy"]
    # nothing reached the account
    with pytest.raises(ClientError) as err:
        aws.client("s3").get_bucket_policy(Bucket=BUCKET)
    assert err.value.response["Error"]["Code"] == "NoSuchBucketPolicy"


def test_create_vpc_is_refused_and_no_vpc_appears(session: GatewaySession, aws: MotoAccount) -> None:
    ec2 = session.client("ec2")
    before = {v["VpcId"] for v in ec2.describe_vpcs()["Vpcs"]}
    with pytest.raises(WriteRefused, match=r"refused ec2:CreateVpc"):
        ec2.create_vpc(CidrBlock="10.20.0.0/16")
    after = {v["VpcId"] for v in ec2.describe_vpcs()["Vpcs"]}
    assert after == before
    assert "10.20.0.0/16" not in {v["CidrBlock"] for v in aws.client("ec2").describe_vpcs()["Vpcs"]}
    assert session.guard.refused == ["ec2:CreateVpc"]


def test_resource_delete_is_refused_and_the_bucket_stays(session: GatewaySession, aws: MotoAccount) -> None:
    with pytest.raises(WriteRefused, match=r"refused s3:DeleteBucket"):
        session.resource("s3").Bucket(BUCKET).delete()
    assert BUCKET in [b["Name"] for b in aws.client("s3").list_buckets()["Buckets"]]
    assert session.guard.refused == ["s3:DeleteBucket"]


def test_a_swallowed_refusal_is_still_recorded(session: GatewaySession) -> None:
    s3 = session.client("s3")
    for operation in (lambda: s3.create_bucket(Bucket="second"), lambda: s3.delete_bucket(Bucket=BUCKET)):
        with contextlib.suppress(WriteRefused):
            operation()
    assert session.guard.refused == ["s3:CreateBucket", "s3:DeleteBucket"]


def test_reads_work(session: GatewaySession) -> None:
    assert [b["Name"] for b in session.client("s3").list_buckets()["Buckets"]] == [BUCKET]
    session.client("s3").head_bucket(Bucket=BUCKET)
    vpcs = session.client("ec2").describe_vpcs()["Vpcs"]
    assert vpcs and all(v["VpcId"].startswith("vpc-") for v in vpcs)
    assert [b.name for b in session.resource("s3").buckets.all()] == [BUCKET]
    assert session.guard.refused == []


def test_client_cache_per_service_and_region(session: GatewaySession) -> None:
    s3 = session.client("s3")
    assert session.client("s3") is s3
    assert session.client("s3", region_name=REGION) is s3
    other_region = session.client("s3", region_name="eu-west-1")
    assert other_region is not s3
    assert other_region.meta.region_name == "eu-west-1"
    assert other_region.meta.endpoint_url.endswith("/s3/eu-west-1")
    assert session.client("s3", region_name="eu-west-1") is other_region
    assert session.client("ec2") is not s3


def test_client_with_explicit_config_is_still_guarded(session: GatewaySession, aws: MotoAccount) -> None:
    s3 = session.client("s3", config=Config(retries={"max_attempts": 1}))
    assert s3 is not session.client("s3")
    with pytest.raises(WriteRefused, match=r"refused s3:DeleteBucket"):
        s3.delete_bucket(Bucket=BUCKET)
    assert BUCKET in [b["Name"] for b in aws.client("s3").list_buckets()["Buckets"]]
    assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == [BUCKET]


def test_client_with_other_region_is_guarded(session: GatewaySession) -> None:
    ec2 = session.client("ec2", region_name="eu-west-1")
    with pytest.raises(WriteRefused, match=r"refused ec2:CreateVpc"):
        ec2.create_vpc(CidrBlock="10.30.0.0/16")


def test_the_session_holds_no_credential_of_the_account(session: GatewaySession) -> None:
    assert session.region_name == REGION
    frozen = session.get_credentials().get_frozen_credentials()
    assert (frozen.access_key, frozen.secret_key, frozen.token) == (GATEWAY_KEY, GATEWAY_SECRET, None)


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


def test_a_name_under_invalid_fails_to_resolve_without_asking_dns() -> None:
    """The guard (installed for the suite) answers an RFC 6761 .invalid name as a resolver would: no such name."""
    before = len(netguard.refused)
    with pytest.raises(socket.gaierror) as raised:
        socket.getaddrinfo("sts.stepeval-test.invalid", 443)
    assert raised.value.errno == socket.EAI_NONAME
    assert netguard.is_invalid(b"X.INVALID.") and not netguard.is_invalid("invalid.example.com")
    assert len(netguard.refused) == before


# Every operation the rules allow whose name does not start with a read prefix (the allow list is the only way in),
# each decided: what it does, and why that is only reading.
NOT_PREFIXED_READS = {
    "dynamodb:Query": "reads items by key",
    "dynamodb:Scan": "reads a table's items",
    "dynamodb:TransactGetItems": "reads items at once (no write: TransactWriteItems is another operation)",
    "sts:DecodeAuthorizationMessage": "decodes a denial's message; no state",
    "s3:SelectObjectContent": "reads part of an object",
    "ec2:SearchTransitGatewayRoutes": "reads a route table",
    "ec2:SearchLocalGatewayRoutes": "reads a route table",
    "resource-groups:SearchResources": "reads which resources match a query",
    "logs:FilterLogEvents": "reads log events",
    "cloudsearchdomain:Search": "reads a search domain's documents",
    "sdb:Select": "reads a domain's items",
    "iam:SimulatePrincipalPolicy": "evaluates policies, stores nothing",
    "iam:SimulateCustomPolicy": "evaluates the policies it is given, stores nothing",
    "route53:TestDNSAnswer": "asks a zone's name servers; no state",
    "glue:SearchTables": "reads the catalog's tables",
}


def test_every_allowed_operation_not_named_as_a_read_is_decided() -> None:
    """The attacker's scan: what the gateway allows whose name is no read's. Each is in the decided list above, and
    exists in its model (a name no model has would hide a typo)."""
    allowed = {name for name in ALLOWED_READS if not name.split(":")[1].startswith(READ_PREFIXES)}
    assert allowed == set(NOT_PREFIXED_READS)
    for name in allowed:
        service, operation = name.split(":")
        model = find_service_model(service)
        assert model is not None and operation in model.operation_names, name
        assert is_read(service, operation) is True


@pytest.mark.parametrize(
    "operation", ["GenerateCredentialReport", "GenerateServiceLastAccessedDetails", "GenerateOrganizationsAccessReport"]
)
def test_report_jobs_are_refused(operation: str) -> None:
    """A job whose report exists afterwards passes a bit to the next evaluation of the account (issue 31)."""
    assert f"iam:{operation}" in REPORT_JOBS
    assert refusal("iam", operation) == "report job: it starts a job whose report the next evaluation sees"


@pytest.mark.parametrize("operation", ["StartQuery", "CreateExportTask", "TestMetricFilter"])
def test_an_operation_outside_the_lists_not_named_as_a_read_is_refused(operation: str) -> None:
    assert refusal("logs", operation) == "not named as a read"
