"""Every way a step module can misbehave gets one answer, with its error kind, and AWS stays unchanged."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

from harness.core.account import Account, Credentials
from harness.core.contract import LEARNER_MESSAGES, LEARNER_SAFE_ERROR, Answer, ContextInput, Event
from harness.sandbox.runner import Runner

VICTIM = "victim-bucket"
BUCKET_EVENT = ContextInput(events=[Event(type="AWS::S3::Bucket", id=VICTIM)])


def assert_error(answer: Answer, kind: str) -> None:
    assert answer.status == "error", answer
    assert answer.error is not None and answer.error.kind == kind, answer.error
    assert answer.success is False
    assert answer.message == LEARNER_MESSAGES.get(kind, LEARNER_SAFE_ERROR)
    assert answer.failure_context is None and answer.resolved == []


def test_a_write_is_refused_before_it_is_sent(misbehaving_runner: Runner, sandbox, aws) -> None:
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=VICTIM)
    answer = misbehaving_runner.evaluate("01.01", BUCKET_EVENT, sandbox)
    assert_error(answer, "read_only")
    assert "s3:PutBucketPolicy" in answer.error.detail
    with pytest.raises(ClientError) as raised:
        s3.get_bucket_policy(Bucket=VICTIM)
    assert raised.value.response["Error"]["Code"] == "NoSuchBucketPolicy"


def test_a_swallowed_refusal_still_counts(misbehaving_runner: Runner, sandbox, aws) -> None:
    ec2 = aws.client("ec2")
    vpcs_before = ec2.describe_vpcs()["Vpcs"]
    answer = misbehaving_runner.evaluate("01.02", ContextInput(), sandbox)
    assert_error(answer, "read_only")
    assert "ec2:CreateVpc" in answer.error.detail and "caught" in answer.error.detail
    assert ec2.describe_vpcs()["Vpcs"] == vpcs_before


def test_resources_made_from_the_session_are_guarded_too(misbehaving_runner: Runner, sandbox, aws) -> None:
    s3 = aws.client("s3")
    s3.create_bucket(Bucket=VICTIM)
    answer = misbehaving_runner.evaluate("01.03", BUCKET_EVENT, sandbox)
    assert_error(answer, "read_only")
    assert "s3:DeleteBucket" in answer.error.detail
    assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == [VICTIM]


def test_the_module_finds_no_credentials_of_its_own(misbehaving_runner: Runner, sandbox, moto_url) -> None:
    answer = misbehaving_runner.evaluate("02.01", ContextInput(), sandbox)
    assert answer.status == "fail"
    assert answer.message == "{'env': [], 'default_chain': False}"


@pytest.mark.parametrize("step", ["02.02", "02.03"], ids=["blocking-sleep", "endless-await"])
def test_a_hung_module_is_stopped_at_its_timeout(misbehaving_runner: Runner, sandbox, moto_url, step) -> None:
    started = time.monotonic()
    answer = misbehaving_runner.evaluate(step, ContextInput(), sandbox)
    elapsed = time.monotonic() - started
    assert_error(answer, "timeout")
    assert "within 1 s" in answer.error.detail
    assert elapsed < 1 + 2, f"answered {elapsed:.1f} s after the start, limit 1 s"


def test_work_left_running_does_not_hold_the_answer(misbehaving_runner: Runner, sandbox, moto_url) -> None:
    started = time.monotonic()
    answer = misbehaving_runner.evaluate("02.10", ContextInput(), sandbox)
    assert answer.status == "pass", answer
    assert time.monotonic() - started < 2, "the answer waited for the module's leftover task or thread"


def test_the_command_line_timeout_overrides_the_spec(misbehaving_runner: Runner, sandbox, moto_url) -> None:
    answer = misbehaving_runner.evaluate("02.02", ContextInput(), sandbox, timeout_s=0.3)
    assert_error(answer, "timeout")
    assert "within 0.3 s" in answer.error.detail


def test_the_pool_recovers_after_a_timeout(misbehaving_runner: Runner, sandbox, aws) -> None:
    misbehaving_runner.evaluate("02.03", ContextInput(), sandbox, timeout_s=0.2)
    answer = misbehaving_runner.evaluate("02.01", ContextInput(), sandbox)
    assert answer.status == "fail"


def test_an_exception_gives_a_trimmed_traceback(misbehaving_runner: Runner, sandbox, moto_url) -> None:
    answer = misbehaving_runner.evaluate("02.04", ContextInput(), sandbox)
    assert_error(answer, "exception")
    assert "IndexError" in answer.error.detail
    assert "02_04.py" in answer.error.detail and "find_bucket" in answer.error.detail
    assert "harness/inside/worker.py" not in answer.error.detail


def test_sys_exit_is_an_exception_not_a_lost_answer(misbehaving_runner: Runner, sandbox, moto_url) -> None:
    answer = misbehaving_runner.evaluate("02.05", ContextInput(), sandbox)
    assert_error(answer, "exception")
    assert "SystemExit: 3" in answer.error.detail


def test_a_process_that_dies_is_a_crash(misbehaving_runner: Runner, sandbox, moto_url) -> None:
    restarts = misbehaving_runner.pool.restarts
    answer = misbehaving_runner.evaluate("02.06", ContextInput(), sandbox)
    assert_error(answer, "crash")
    assert "exit code 9" in answer.error.detail
    assert misbehaving_runner.pool.restarts == restarts + 1
    assert misbehaving_runner.evaluate("02.01", ContextInput(), sandbox).status == "fail"


def test_processes_that_die_as_they_are_killed_never_upset_the_template(
    misbehaving_runner: Runner, sandbox, moto_url
) -> None:
    """An evaluation process that exits at the moment its lifeline ends: both reach the template in one batch of
    events, in either order, and it must keep serving (it once died of it, and every spare with it)."""
    template = misbehaving_runner.pool._template
    for _ in range(12):
        assert_error(misbehaving_runner.evaluate("02.06", ContextInput(), sandbox), "crash")
        assert misbehaving_runner.evaluate("02.01", ContextInput(), sandbox).status == "fail"
    assert misbehaving_runner.pool._template is template and template.process.poll() is None


def test_a_result_that_is_not_a_dict_breaks_the_contract(misbehaving_runner: Runner, sandbox, moto_url) -> None:
    answer = misbehaving_runner.evaluate("02.07", ContextInput(), sandbox)
    assert_error(answer, "contract")
    assert "result-is-dict" in answer.error.detail and "list" in answer.error.detail


def test_a_result_that_is_not_json_breaks_the_contract(misbehaving_runner: Runner, sandbox, moto_url) -> None:
    answer = misbehaving_runner.evaluate("02.08", ContextInput(), sandbox)
    assert_error(answer, "contract")
    assert "datetime" in answer.error.detail


def test_access_denied_is_an_aws_error(misbehaving_runner: Runner, sandbox, moto_url) -> None:
    answer = misbehaving_runner.evaluate("03.01", ContextInput(), sandbox)
    assert_error(answer, "aws")
    assert "AccessDenied" in answer.error.detail


def test_transient_throttling_is_retried(misbehaving_runner: Runner, sandbox, aws) -> None:
    aws.client("s3").create_bucket(Bucket=VICTIM)
    answer = misbehaving_runner.evaluate("03.02", ContextInput(), sandbox)
    assert answer.status == "pass", answer
    assert answer.message == "answered after 2 attempts"


def test_throttling_that_escapes_is_an_aws_error(misbehaving_runner: Runner, sandbox, moto_url) -> None:
    answer = misbehaving_runner.evaluate("03.03", ContextInput(), sandbox)
    assert_error(answer, "aws")
    assert "DescribeVpcs: Throttling" in answer.error.detail


def test_an_unreachable_endpoint_is_an_aws_error(misbehaving_runner: Runner, moto_url) -> None:
    dead = Account(Credentials("testing", "testing"), "us-east-1", "http://127.0.0.1:9")
    answer = misbehaving_runner.evaluate("03.04", ContextInput(), dead)
    assert_error(answer, "aws")
    assert "did not answer" in answer.error.detail


def test_handlers_a_module_registers_do_not_leak_into_the_next_run(misbehaving_runner: Runner, sandbox, aws) -> None:
    aws.client("s3").create_bucket(Bucket=VICTIM)
    assert_error(misbehaving_runner.evaluate("03.01", ContextInput(), sandbox), "aws")
    for _ in range(misbehaving_runner.pool.size):  # every warm worker, whichever ran 03.01
        assert misbehaving_runner.evaluate("03.04", ContextInput(), sandbox).status == "pass"


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        ("04.01", "no module at"),
        ("04.02", "SyntaxError"),
        ("04.03", "run is not an async def"),
        ("04.04", "run(session, ctx) should be run(session, context, logger)"),
        ("04.05", "this module cannot be imported"),
    ],
    ids=["missing", "syntax-error", "not-async", "wrong-signature", "import-raises"],
)
def test_a_module_that_does_not_load(misbehaving_runner: Runner, sandbox, moto_url, step, expected) -> None:
    answer = misbehaving_runner.evaluate(step, ContextInput(), sandbox)
    assert_error(answer, "load")
    assert expected in answer.error.detail


def processes_with(marker: str) -> list[int]:
    """Host pids whose command line holds `marker` (zombies excluded: they are already dead)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes() and " Z " not in (entry / "stat").read_text():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_a_timeout_also_ends_what_the_module_started(misbehaving_runner: Runner, sandbox, moto_url) -> None:
    marker = f"stepeval-marker-{uuid.uuid4().hex}"
    context = ContextInput(events=[Event(type="AWS::S3::Bucket", id=marker)])
    assert_error(misbehaving_runner.evaluate("02.09", context, sandbox), "timeout")
    for _ in range(50):  # the kill is immediate; reaping may take a moment
        if not processes_with(marker):
            break
        time.sleep(0.1)
    assert not processes_with(marker), "a process the module started outlived the timeout"
