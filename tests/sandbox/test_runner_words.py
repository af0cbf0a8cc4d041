"""The outside integrator's hooks, replayed through the real Runner, worker and gateway on a moto server: what the
learner reads of the web-tier lab's answers names no handle, claims no deletion it cannot know, and counts only the
step's own checks."""

from __future__ import annotations

from pathlib import Path

from harness.core.account import Account
from harness.core.contract import ContextInput, Event, Handle
from harness.core.lab import load_lab
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner

REPO = Path(__file__).parents[2]


def test_a_step_not_built_at_all(pool: WorkerPool, sandbox: Account, aws) -> None:
    aws.client("s3").create_bucket(Bucket="site")
    resolved = [Handle(name="01_01_bucket", type="AWS::S3::Bucket", id="site")]
    answer = Runner(load_lab(REPO), pool).evaluate("01.02", ContextInput(resolved=resolved), sandbox)
    assert answer.status == "fail" and answer.failure_context is not None
    assert answer.message == "0 of 1 check passed. No bucket policy was created in this step."
    assert answer.progress is not None and (answer.progress.passed, answer.progress.total) == (0, 1)
    assert answer.failure_context.hint_context == (
        "Create the bucket policy this step asks for, in the lab's region (us-east-1). (output 01_02_policy)"
    )


def test_an_event_naming_a_bucket_that_never_existed(pool: WorkerPool, sandbox: Account, aws) -> None:
    context = ContextInput(events=[Event(type="AWS::S3::Bucket", id="nope-bucket")])
    answer = Runner(load_lab(REPO), pool).evaluate("01.01", context, sandbox)
    assert answer.status == "fail" and answer.failure_context is not None
    assert answer.failure_context.issue == "We could not find the S3 bucket nope-bucket recorded for this step."
    assert answer.message == f"0 of 1 check passed. {answer.failure_context.issue}"
