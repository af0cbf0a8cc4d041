"""`stepeval run` as a real process against a real moto server: one JSON object out, the right exit code."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from tests.conftest import ANSWER_KEYS, LABS, STEPEVAL, MotoAccount

pytestmark = pytest.mark.process


def stepeval_run(*args: str, endpoint: str, context: dict | None = None, lab: str = "seed_examples"):
    command = [STEPEVAL, "run", *args, "--lab", str(LABS / lab), "--endpoint-url", endpoint]
    if context is not None:
        command += ["--context", "-"]
    done = subprocess.run(command, input=json.dumps(context or {}), capture_output=True, text=True, timeout=60)
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
