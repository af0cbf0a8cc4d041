"""bench/replay.py, the stand-in `python -m bench.service --aws replay` measures against: it records moto's answers,
then replays them without asking moto, and refuses what it never recorded with its service's own error shape,
over real HTTP on loopback."""

from __future__ import annotations

import http.client
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from bench import replay
from bench.common import stop

pytestmark = pytest.mark.process  # the stand-in runs in a process of its own, as in the benchmark

ROOT = Path(__file__).resolve().parents[2]
ONCE = Config(retries={"max_attempts": 1})


@pytest.fixture
def stand_in(moto_url: str) -> Iterator[str]:
    process, url = replay.start(moto_url, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        yield url
    finally:
        stop(process)


def client(service: str, url: str, key: str = "testing") -> Any:
    return boto3.client(
        service, endpoint_url=url, region_name="us-east-1", config=ONCE,
        aws_access_key_id=key, aws_secret_access_key="testing",
    )  # fmt: skip


def refusal(call: Any) -> ClientError:
    with pytest.raises(ClientError) as refused:
        call()
    return refused.value


def test_answers_as_moto_answered_without_asking_it_again(moto_url: str, stand_in: str) -> None:
    moto = client("ec2", moto_url)
    moto.create_vpc(CidrBlock="10.1.0.0/16")
    ec2, sts = client("ec2", stand_in), client("sts", stand_in)
    recorded_vpcs = ec2.describe_vpcs()["Vpcs"]
    tagged = {"Filters": [{"Name": "cidr", "Values": ["10.1.0.0/16"]}]}
    recorded_filtered = ec2.describe_vpcs(**tagged)["Vpcs"]
    identity = sts.get_caller_identity()["Arn"]
    assert len(recorded_vpcs) == 2 and len(recorded_filtered) == 1  # the default VPC and ours, from moto

    assert replay.replay(stand_in) == 3
    moto.create_vpc(CidrBlock="10.2.0.0/16")  # moto now answers otherwise: the stand-in does not ask it
    assert len(moto.describe_vpcs()["Vpcs"]) == 3
    assert ec2.describe_vpcs()["Vpcs"] == recorded_vpcs
    assert ec2.describe_vpcs(**tagged)["Vpcs"] == recorded_filtered
    assert sts.get_caller_identity()["Arn"] == identity
    fresh = client("ec2", stand_in)  # another client, its own signature and date: the same question
    assert fresh.describe_vpcs()["Vpcs"] == recorded_vpcs


def test_refuses_what_it_never_recorded_in_each_protocols_error_shape(stand_in: str) -> None:
    ec2 = client("ec2", stand_in)
    ec2.describe_vpcs()
    replay.replay(stand_in)

    refusals = {
        "other parameters": refusal(lambda: ec2.describe_vpcs(Filters=[{"Name": "cidr", "Values": ["10.9.0.0/16"]}])),
        "another caller": refusal(lambda: client("ec2", stand_in, key="AKIAOTHERCALLER00000").describe_vpcs()),
        "another operation (EC2's XML)": refusal(ec2.describe_subnets),
        "query protocol (STS's XML)": refusal(client("sts", stand_in).get_caller_identity),
        "JSON protocol (DynamoDB)": refusal(client("dynamodb", stand_in).list_tables),
    }
    for case, error in refusals.items():
        assert error.response["ResponseMetadata"]["HTTPStatusCode"] == 400, case
        assert error.response["Error"]["Code"] == replay.ERROR_CODE, case
        assert "no answer recorded" in error.response["Error"]["Message"], case
    assert "ec2 DescribeSubnets" in str(refusals["another operation (EC2's XML)"])
    assert "sts GetCallerIdentity" in str(refusals["query protocol (STS's XML)"])
    assert "DynamoDB_20120810.ListTables" in str(refusals["JSON protocol (DynamoDB)"])


def test_keeps_its_connections_alive(stand_in: str) -> None:
    host, port = stand_in.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    sockets = []
    try:
        for _ in range(2):
            connection.request("GET", replay.CONTROL_PATH)
            answer = connection.getresponse()
            assert answer.status == 200 and b'"recording"' in answer.read()
            assert not answer.will_close
            sockets.append(connection.sock)
        assert sockets[0] is sockets[1]  # the second request went on the first's connection
    finally:
        connection.close()


def test_a_request_is_keyed_by_what_it_asks_not_by_its_signature() -> None:
    def key(body: bytes, authorization: str, **headers: str) -> Any:
        sent = {"authorization": authorization, "content-type": "application/x-www-form-urlencoded", **headers}
        return replay.request_key("POST", "/", b"", sent, body)

    signed = "AWS4-HMAC-SHA256 Credential=AKIA1/20261129/us-east-1/ec2/aws4_request, SignedHeaders=host, Signature="
    one = key(b"Action=DescribeVpcs&Version=2016-11-15&VpcId.1=vpc-1", signed + "aa", **{"x-amz-date": "1"})
    assert key(b"VpcId.1=vpc-1&Version=2016-11-15&Action=DescribeVpcs", signed + "bb", **{"x-amz-date": "2"}) == one
    assert key(b"Action=DescribeVpcs&Version=2016-11-15&VpcId.1=vpc-2", signed + "aa") != one
    assert key(b"Action=DescribeVpcs&Version=2016-11-15&VpcId.1=vpc-1", signed.replace("AKIA1", "AKIA2")) != one
    assert key(b"Action=DescribeVpcs&Version=2016-11-15&VpcId.1=vpc-1", signed.replace("us-east-1", "eu-west-1")) != one
