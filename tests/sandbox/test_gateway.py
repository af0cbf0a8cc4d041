"""The read-only gateway against a real moto server: reads go on, signed with the evaluation's own credentials;
every way of writing past the in-process guard ends at the gateway, refused, logged, and nothing is written."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator

import boto3
import pytest
from botocore.exceptions import ClientError, ConnectionClosedError, EndpointConnectionError

from harness._compat.botocore import send_through, sender
from harness.core.account import Account, Credentials
from harness.core.contract import ContextInput
from harness.core.lab import load_lab
from harness.inside.link import PREAMBLE, GatewayLink
from harness.sandbox.gateway import Gateway
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner
from harness.sandbox.upstream import aws_upstream
from tests.conftest import LABS, REGION, MotoAccount, gateway_session

pytestmark = pytest.mark.process

ACCOUNT_A, ACCOUNT_B = "111111111111", "222222222222"


def assumed(moto_url: str, account: str) -> Credentials:
    """Credentials that moto places in `account` (an assumed role there), as the service would hold them."""
    sts = boto3.client("sts", region_name=REGION, endpoint_url=moto_url)
    role = f"arn:aws:iam::{account}:role/stepeval-evaluator"
    found = sts.assume_role(RoleArn=role, RoleSessionName="gw-test")["Credentials"]
    return Credentials(found["AccessKeyId"], found["SecretAccessKey"], found["SessionToken"])


def raw_exchange(gateway: Gateway, token: str, target: str, body: bytes) -> tuple[int, bytes]:
    """A form-encoded POST written by hand on a gateway connection of our own (what a hostile module can do)."""
    link = GatewayLink()
    link.attach(gateway.socket_path, token)
    connection = link.take(5.0)
    connection.request("POST", target, body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
    response = connection.getresponse()
    return response.status, response.read()


def vpc_cidrs(aws: MotoAccount) -> set[str]:
    return {vpc["CidrBlock"] for vpc in aws.client("ec2").describe_vpcs()["Vpcs"]}


def test_reads_are_signed_with_each_evaluations_own_credentials(gateway: Gateway, moto_url: str) -> None:
    a = Account(assumed(moto_url, ACCOUNT_A), REGION, moto_url)
    b = Account(assumed(moto_url, ACCOUNT_B), REGION, moto_url)
    boto3.client(
        "s3", region_name=REGION, endpoint_url=moto_url, aws_access_key_id=a.credentials.access_key,
        aws_secret_access_key=a.credentials.secret_key, aws_session_token=a.credentials.token,
    ).create_bucket(Bucket="only-in-a")  # fmt: skip
    for spec, expected in ((a, ["only-in-a"]), (b, []), (a, ["only-in-a"])):
        with gateway_session(gateway, spec) as (session, token):
            assert [x["Name"] for x in session.client("s3").list_buckets()["Buckets"]] == expected
            caller = session.client("sts").get_caller_identity()
            assert caller["Account"] == (ACCOUNT_A if spec is a else ACCOUNT_B)
            log = gateway.finish(token)
        assert [(op.service, op.operation, op.allowed, op.status) for op in log] == [
            ("s3", "ListBuckets", True, 200),
            ("sts", "GetCallerIdentity", True, 200),
        ]


def test_a_write_with_copied_credentials_is_refused_and_logged(
    gateway: Gateway, sandbox: Account, aws: MotoAccount
) -> None:
    with gateway_session(gateway, sandbox) as (session, token):
        frozen = session.get_credentials().get_frozen_credentials()
        rogue = boto3.Session(frozen.access_key, frozen.secret_key, region_name=REGION)
        ec2 = rogue.client("ec2", endpoint_url=session.client("ec2").meta.endpoint_url)
        send_through(ec2, sender(session.client("ec2")))  # the session's line, copied
        with pytest.raises(ClientError) as refused:
            ec2.create_vpc(CidrBlock="10.70.0.0/16")
        log = gateway.finish(token)
    assert refused.value.response["Error"]["Code"] == "AccessDenied"
    assert "refused ec2:CreateVpc: evaluation code may only read" in str(refused.value)
    assert "10.70.0.0/16" not in vpc_cidrs(aws)
    assert [(op.operation, op.allowed, op.status) for op in log] == [("CreateVpc", False, 403)]


def test_a_hand_signed_write_in_raw_http_is_refused(gateway: Gateway, sandbox: Account, aws: MotoAccount) -> None:
    with gateway_session(gateway, sandbox) as (_, token):
        body = b"Action=CreateVpc&Version=2016-11-15&CidrBlock=10.71.0.0/16"
        status, answer = raw_exchange(gateway, token, "/ec2/us-east-1/", body)
        log = gateway.finish(token)
    assert status == 403
    assert b"AccessDenied" in answer
    assert "10.71.0.0/16" not in vpc_cidrs(aws)
    assert [(op.operation, op.allowed) for op in log] == [("CreateVpc", False)]


def test_a_write_from_a_subprocess_is_refused(gateway: Gateway, sandbox: Account, aws: MotoAccount) -> None:
    with gateway_session(gateway, sandbox) as (_, token):
        code = (
            "import socket, sys; line = socket.socket(socket.AF_UNIX); line.connect(sys.argv[1]); "
            "line.sendall(sys.argv[2].encode() + b'PUT /s3/us-east-1/from-a-child HTTP/1.1\\r\\n"
            "Content-Length: 0\\r\\n\\r\\n'); print(line.recv(65536))"
        )
        argv = [sys.executable, "-c", code, gateway.socket_path, f"{PREAMBLE.decode()}{token}\n"]
        child = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        log = gateway.finish(token)
    assert child.returncode == 0 and "403" in child.stdout and "AccessDenied" in child.stdout, child
    assert "from-a-child" not in [x["Name"] for x in aws.client("s3").list_buckets()["Buckets"]]
    assert [(op.service, op.operation, op.allowed) for op in log] == [("s3", "CreateBucket", False)]


def test_a_request_dressed_as_another_service_is_refused(gateway: Gateway, sandbox: Account, aws: MotoAccount) -> None:
    with gateway_session(gateway, sandbox) as (_, token):
        status, _ = raw_exchange(gateway, token, "/dynamodb/us-east-1/", b"Action=CreateVpc&CidrBlock=10.72.0.0/16")
        log = gateway.finish(token)
    assert status == 403
    assert "10.72.0.0/16" not in vpc_cidrs(aws)
    assert not log[0].allowed and "takes no Action" in log[0].detail


def test_without_a_live_token_nothing_is_answered(gateway: Gateway, sandbox: Account) -> None:
    for preamble in (b"GET / HTTP/1.1\r\n", PREAMBLE + b"0" * 32 + b"\n"):
        with socket.socket(socket.AF_UNIX) as raw:
            raw.connect(gateway.socket_path)
            raw.sendall(preamble + b"GET /s3/us-east-1/ HTTP/1.1\r\nHost: x\r\n\r\n")
            assert raw.recv(1024) == b""  # closed unanswered
    with gateway_session(gateway, sandbox) as (session, token):
        s3 = session.client("s3")
        s3.list_buckets()
        gateway.finish(token)  # the evaluation is over: its connections are dead ends
        with pytest.raises((ConnectionClosedError, EndpointConnectionError, ClientError)):
            session.client("s3", config=None, region_name="eu-west-1").list_buckets()


def test_large_answers_stream_through_intact(gateway: Gateway, sandbox: Account, aws: MotoAccount) -> None:
    payload = bytes(range(256)) * 20_000  # 5 MB
    aws.client("s3").create_bucket(Bucket="big")
    aws.client("s3").put_object(Bucket="big", Key="a/b c.bin", Body=payload)
    with gateway_session(gateway, sandbox) as (session, _):
        assert session.client("s3").get_object(Bucket="big", Key="a/b c.bin")["Body"].read() == payload
        head = session.client("s3").head_object(Bucket="big", Key="a/b c.bin")
    assert head["ContentLength"] == len(payload)


@pytest.mark.parametrize(
    ("service", "region", "endpoint", "signing_region"),
    [
        ("ec2", "eu-west-1", "https://ec2.eu-west-1.amazonaws.com", "eu-west-1"),
        ("iam", "eu-west-1", "https://iam.amazonaws.com", "us-east-1"),
        ("s3", "eu-central-1", "https://s3.eu-central-1.amazonaws.com", "eu-central-1"),
        ("dynamodb", "ap-southeast-2", "https://dynamodb.ap-southeast-2.amazonaws.com", "ap-southeast-2"),
        ("route53", "us-west-2", "https://route53.amazonaws.com", "us-east-1"),
    ],
)
def test_real_aws_endpoints_and_signing_scopes(service: str, region: str, endpoint: str, signing_region: str) -> None:
    """Resolved offline from botocore's endpoint rules: where the gateway sends a real account's reads."""
    upstream = aws_upstream(service, region)
    assert (upstream.endpoint_url, upstream.signing_region) == (endpoint, signing_region)


# --- through the runner: a module's bypass is an `error` of kind read_only, whatever it claimed ----------------


@pytest.fixture(scope="module")
def bypass_runner() -> Iterator[Runner]:
    with WorkerPool(1) as pool:
        yield Runner(load_lab(LABS / "bypass"), pool)


@pytest.mark.parametrize(
    ("step", "refused"),
    [
        ("01.01", "ec2:CreateVpc"),
        ("01.02", "ec2:CreateVpc"),
        ("01.03", "ec2:CreateVpc"),
        ("01.04", "s3:CreateBucket"),
        ("01.05", "dynamodb:(unidentified)"),
    ],
)
def test_every_bypass_ends_at_the_gateway(
    bypass_runner: Runner, sandbox: Account, aws: MotoAccount, step: str, refused: str
) -> None:
    before = (vpc_cidrs(aws), aws.client("s3").list_buckets()["Buckets"])
    answer = bypass_runner.evaluate(step, ContextInput(), sandbox)
    assert answer.status == "error" and answer.error is not None, answer
    assert answer.error.kind == "read_only"
    assert refused in answer.error.detail
    assert answer.diagnostics is not None
    assert any(not op.allowed for op in answer.diagnostics.operations)
    assert (vpc_cidrs(aws), aws.client("s3").list_buckets()["Buckets"]) == before
    assert "testing" not in json.dumps(answer.model_dump(mode="json"))  # the account's keys never reach the answer


def test_select_object_content_is_read_through_the_gateway(
    gateway: Gateway, sandbox: Account, aws: MotoAccount
) -> None:
    """Issue 31: always refused before (CompleteMultipartUpload's template matched it)."""
    aws.client("s3").create_bucket(Bucket="data")
    aws.client("s3").put_object(Bucket="data", Key="rows.csv", Body=b"name,team\nada,red\nbob,blue\n")
    with gateway_session(gateway, sandbox) as (session, token):
        answer = session.client("s3").select_object_content(
            Bucket="data", Key="rows.csv", ExpressionType="SQL", Expression="SELECT * FROM S3Object",
            InputSerialization={"CSV": {"FileHeaderInfo": "NONE"}}, OutputSerialization={"JSON": {}},
        )  # fmt: skip
        records = b"".join(event["Records"]["Payload"] for event in answer["Payload"] if "Records" in event)
        log = gateway.finish(token)
    assert b"ada" in records and b"blue" in records
    assert [(op.operation, op.allowed) for op in log if op.service == "s3"] == [("SelectObjectContent", True)]
