"""`stepeval run` as a real process against a real moto server: one JSON object out, the right exit code."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import ANSWER_KEYS, LABS, STEPEVAL, MotoAccount

pytestmark = pytest.mark.process


def stepeval_run(
    *args: str, endpoint: str, context: dict | None = None, lab: str = "seed_examples", env: dict | None = None
):
    command = [STEPEVAL, "run", *args, "--lab", str(LABS / lab), "--endpoint-url", endpoint]
    if context is not None:
        command += ["--context", "-"]
    done = subprocess.run(command, input=json.dumps(context or {}), capture_output=True, text=True, timeout=60, env=env)
    answer = json.loads(done.stdout)  # exactly one JSON object, nothing else
    assert set(answer) == ANSWER_KEYS
    return done.returncode, answer, done.stderr


def test_the_seed_examples_pass_through_the_command_line(aws: MotoAccount) -> None:
    s3 = aws.client("s3")
    s3.create_bucket(Bucket="cli-bucket")
    code, answer, _ = stepeval_run(
        "01.01", endpoint=aws.endpoint_url, context={"events": [{"type": "AWS::S3::Bucket", "id": "cli-bucket"}]}
    )
    assert (code, answer["status"]) == (0, "pass")
    resolved = answer["resolved"]
    assert resolved == [{"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": "cli-bucket"}]

    code, answer, _ = stepeval_run("01_02", endpoint=aws.endpoint_url, context={"resolved": resolved})
    assert (code, answer["status"]) == (1, "fail")
    assert answer["failure_context"]["step"] == "01.02"

    policy = {
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"AWS": "*"},
                "Action": ["s3:GetObject"],
                "Resource": "arn:aws:s3:::cli-bucket/*",
            }
        ]
    }
    s3.put_bucket_policy(Bucket="cli-bucket", Policy=json.dumps(policy))
    code, answer, _ = stepeval_run("01.02", endpoint=aws.endpoint_url, context={"resolved": resolved})
    assert (code, answer["status"]) == (0, "pass")
    assert answer["step"] == "01.02" and answer["duration_ms"] > 0


def test_a_temporary_directory_too_deep_for_a_socket_still_evaluates(moto_url: str, tmp_path: Path) -> None:
    """A unix socket's path holds 108 bytes: the gateway's socket must not be put where TMPDIR would overflow it."""
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    env = {**os.environ, "TMPDIR": str(deep)}
    code, answer, stderr = stepeval_run("01.01", endpoint=moto_url, context={"events": []}, env=env)
    assert (code, answer["status"]) == (1, "fail"), stderr
    assert answer["validated"][0]["status"] == "not_found" and "Traceback" not in stderr


def test_a_refused_write_exits_3_and_changes_nothing(aws: MotoAccount) -> None:
    s3 = aws.client("s3")
    s3.create_bucket(Bucket="victim-bucket")
    context = {"events": [{"type": "AWS::S3::Bucket", "id": "victim-bucket"}]}
    code, answer, _ = stepeval_run("01.01", endpoint=aws.endpoint_url, context=context, lab="misbehaving")
    assert code == 3
    assert answer["error"] == {"kind": "read_only", "detail": answer["error"]["detail"]}
    assert "s3:PutBucketPolicy" in answer["error"]["detail"]
    assert answer["success"] is False
    assert s3.list_buckets()["Buckets"][0]["Name"] == "victim-bucket"


def test_prints_and_sys_exit_do_not_spoil_stdout(moto_url: str) -> None:
    code, answer, stderr = stepeval_run("02.05", endpoint=moto_url, lab="misbehaving")
    assert code == 3 and answer["error"]["kind"] == "exception"
    assert "noise on stdout" in stderr


def test_a_crashed_worker_still_gives_one_answer(moto_url: str) -> None:
    code, answer, _ = stepeval_run("02.06", endpoint=moto_url, lab="misbehaving")
    assert code == 3 and answer["error"]["kind"] == "crash"


def test_the_timeout_flag_ends_a_blocking_module(moto_url: str) -> None:
    started = time.monotonic()
    code, answer, _ = stepeval_run("02.02", "--timeout", "0.5", endpoint=moto_url, lab="misbehaving")
    assert code == 3 and answer["error"]["kind"] == "timeout"
    assert time.monotonic() - started < 30  # ended by the limit, not by the module's own 120 s (loose: a busy CI)


def test_a_resource_aws_is_still_deploying_exits_75_pending(aws: MotoAccount) -> None:
    """Not yet is neither a fail (1) nor an error (3): `pending`, exit 75 (EX_TEMPFAIL), with retry_after_s."""
    transition = {"model_name": "cloudfront::distribution", "transition": {"progression": "manual", "times": 1000}}
    httpx.post(f"{aws.endpoint_url}/moto-api/state-manager/set-transition", json=transition, timeout=10)
    try:
        config = {
            "CallerReference": "pending-cli",
            "Comment": "",
            "Enabled": True,
            "Origins": {"Quantity": 1, "Items": [{"Id": "o", "DomainName": "b.s3.amazonaws.com",
                                                  "S3OriginConfig": {"OriginAccessIdentity": ""}}]},
            "DefaultCacheBehavior": {"TargetOriginId": "o", "ViewerProtocolPolicy": "allow-all",
                                     "CachePolicyId": "658327ea-f89d-4fab-a63d-7e88639e58f6"},
        }  # fmt: skip
        distribution = aws.client("cloudfront").create_distribution(DistributionConfig=config)["Distribution"]["Id"]
        context = {"events": [{"type": "AWS::CloudFront::Distribution", "id": distribution}]}
        code, answer, _ = stepeval_run("01.01", endpoint=aws.endpoint_url, context=context, lab="pending")
    finally:
        body = {"model_name": "cloudfront::distribution"}
        httpx.post(f"{aws.endpoint_url}/moto-api/state-manager/unset-transition", json=body, timeout=10)
    assert (code, answer["status"], answer["success"], answer["retry_after_s"]) == (75, "pending", False, 60)
    assert answer["validated"][0]["status"] == "not_found"
    assert answer["failure_context"]["issue"] == (
        f"CloudFront distribution {distribution} is not ready yet (status InProgress): AWS is still working on it."
    )
    assert answer["error"] is None and answer["resolved"] == []


def test_the_accounts_public_access_block_is_read_through_the_gateway(aws: MotoAccount) -> None:
    """The sample lab's 01.02 asks that public policies work: a block on the account (S3 Control) stops them as
    surely as one on the bucket. Asked through the read-only gateway, as every evaluation asks it."""
    bucket = "account-blocked-site"
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=bucket)
    policy = {"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                             "Resource": f"arn:aws:s3:::{bucket}/*"}]}  # fmt: skip
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(policy))
    context = {
        "resolved": [{"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": bucket}],
        "events": [{"type": "AWS::S3::BucketPolicy", "id": bucket}],
    }
    root = str(LABS.parents[1])
    code, answer, _ = stepeval_run("01.02", endpoint=aws.endpoint_url, context=context, lab=root)
    assert (code, answer["status"]) == (0, "pass"), answer["message"]
    control = aws.client("s3control")
    # S3 Control's endpoint rules put the account before the host: moto's address takes it in the path's stead
    control.meta.events.register(
        "before-send.s3-control.*",
        lambda request, **_: setattr(request, "url", request.url.replace("123456789012.", "")),
    )
    blocking = {
        "BlockPublicPolicy": True,
        "RestrictPublicBuckets": False,
        "BlockPublicAcls": False,
        "IgnorePublicAcls": False,
    }
    control.put_public_access_block(AccountId="123456789012", PublicAccessBlockConfiguration=blocking)
    try:
        code, answer, _ = stepeval_run("01.02", endpoint=aws.endpoint_url, context=context, lab=root)
    finally:
        control.delete_public_access_block(AccountId="123456789012")
    assert (code, answer["status"]) == (1, "fail")
    assert answer["failure_context"]["issue"] == (
        f"Bucket policy on {bucket}: the account's public access block blocks public policies, so the public "
        "policy has no effect."
    )
