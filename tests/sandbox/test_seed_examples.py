"""The seed contract's two worked examples, unmodified, through the runner against a real moto server."""

from __future__ import annotations

import json

from harness.core.contract import ContextInput, Event, Handle
from harness.sandbox.runner import Runner

BUCKET = "learner-bucket"
PUBLIC_READ = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{BUCKET}/*"}
    ],
}
BUCKET_HANDLE = Handle(name="01_01_bucket", type="AWS::S3::Bucket", id=BUCKET)


def test_bucket_step_fails_with_no_events(seed_runner: Runner, sandbox, aws) -> None:
    answer = seed_runner.evaluate("01.01", ContextInput(), sandbox)
    assert answer.status == "fail" and answer.success is False
    assert answer.failure_context.step == "01.01"
    assert "No S3 bucket" in answer.failure_context.issue
    assert answer.validated[0].status == "not_found"
    assert answer.resolved == []


def test_bucket_step_passes_and_resolves_the_bucket(seed_runner: Runner, sandbox, aws) -> None:
    aws.client("s3").create_bucket(Bucket=BUCKET)
    context = ContextInput(events=[Event(type="AWS::S3::Bucket", id=BUCKET)])
    answer = seed_runner.evaluate("01.01", context, sandbox)
    assert answer.status == "pass" and answer.success is True
    assert answer.error is None and answer.failure_context is None
    assert answer.resolved == [BUCKET_HANDLE]


def test_bucket_event_for_a_missing_bucket_fails(seed_runner: Runner, sandbox, aws) -> None:
    context = ContextInput(events=[Event(type="AWS::S3::Bucket", id="never-created")])
    answer = seed_runner.evaluate("01.01", context, sandbox)
    assert answer.status == "fail"


def test_policy_step_fails_without_a_policy(seed_runner: Runner, sandbox, aws) -> None:
    aws.client("s3").create_bucket(Bucket=BUCKET)
    answer = seed_runner.evaluate("01.02", ContextInput(resolved=[BUCKET_HANDLE]), sandbox)
    assert answer.status == "fail"
    assert "has no bucket policy" in answer.failure_context.issue
    statuses = {entry.name: entry.status for entry in answer.validated}
    assert statuses == {"01_01_bucket": "found", "01_02_policy": "not_found"}


def test_policy_step_passes_with_a_public_read_policy(seed_runner: Runner, sandbox, aws) -> None:
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=BUCKET)
    s3.put_bucket_policy(Bucket=BUCKET, Policy=json.dumps(PUBLIC_READ))
    context = ContextInput(resolved=[BUCKET_HANDLE], events=[Event(type="AWS::S3::BucketPolicy", id=BUCKET)])
    answer = seed_runner.evaluate("01.02", context, sandbox)
    assert answer.status == "pass", answer
    assert [h.name for h in answer.resolved] == ["01_02_policy"]
    assert answer.resolved[0].id == BUCKET


def test_policy_step_fails_early_without_the_prior_handle(seed_runner: Runner, sandbox, aws) -> None:
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=BUCKET)
    s3.put_bucket_policy(Bucket=BUCKET, Policy=json.dumps(PUBLIC_READ))
    answer = seed_runner.evaluate("01.02", ContextInput(), sandbox)
    assert answer.status == "fail"
    assert "01.01" in answer.failure_context.issue
    assert all(entry.status == "not_found" for entry in answer.validated)


def test_policy_step_fails_when_the_bucket_was_deleted_afterwards(seed_runner: Runner, sandbox, aws) -> None:
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=BUCKET)
    s3.delete_bucket(Bucket=BUCKET)
    answer = seed_runner.evaluate("01.02", ContextInput(resolved=[BUCKET_HANDLE]), sandbox)
    assert answer.status == "fail"
    assert "no longer exists" in answer.failure_context.issue


def test_the_modules_log_lines_travel_in_the_author_only_diagnostics(seed_runner: Runner, sandbox, aws) -> None:
    context = ContextInput(events=[Event(type="AWS::S3::Bucket", id="never-created")])
    answer = seed_runner.evaluate("01.01", context, sandbox)
    assert answer.diagnostics is not None
    assert "INFO bucket never-created does not exist" in answer.diagnostics.log
    assert "never-created does not exist" not in answer.message  # the learner sees message and failure_context
