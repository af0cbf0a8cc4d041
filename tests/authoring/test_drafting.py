"""`stepeval new STEP --from-solution`: drafts that require what the solution chose, written with the kit.

Real moto throughout: the solutions are played, the baselines made and the drafts' mutants run on it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.commands.scaffold import write_draft
from harness.core.lab import load_lab
from tests.conftest import LABS, STEPEVAL

pytestmark = [pytest.mark.process, pytest.mark.moto]

KILLED = (  # a changed attribute of each kind, each failing its step's draft
    "PutBucketVersioning VersioningConfiguration.Status=Suspended",
    "CreateTable AttributeDefinitions[1].AttributeType=B",
    "CreateRole AssumeRolePolicyDocument.Statement[0].Principal=*",
    "PutRolePolicy PolicyDocument.Statement[0].Action=dynamodb:*",
    "PutRolePolicy PolicyDocument.Statement[0].Resource=*",
    "CreateFunction Runtime=python3.13",
    "CreateFunction MemorySize=257",
    "CreateQueue#2 Attributes[VisibilityTimeout]->VisibilityTimeout-x",
    "CreateQueue#2 Attributes[RedrivePolicy]->RedrivePolicy-x",
)


@pytest.fixture
def lab_dir(tmp_path: Path) -> Path:
    shutil.copytree(LABS / "drafts", tmp_path / "lab")
    return tmp_path / "lab"


def _drafts(lab_dir: Path, *, force: bool = False) -> dict[str, str]:
    lab = load_lab(lab_dir)
    return {key: write_draft(lab, key, force=force).read_text() for key in lab.steps}


@pytest.mark.timeout(600)  # the time its `stepeval mutate` is given
def test_drafts_pass_the_solutions_and_fail_on_a_changed_attribute(lab_dir: Path) -> None:
    drafts = _drafts(lab_dir)
    for text in drafts.values():
        assert text.startswith("# DRAFT written by `stepeval new")
        assert "never shipped unread" in text
        assert "drafts-" not in text and "team" not in text  # names and tags are the learner's to choose
    assert "s3.versioning_enabled()" in drafts["01.01"]
    assert 'dynamodb.keys(("pk", "S"), ("sk", "N"))' in drafts["01.02"]
    assert 'dynamodb.billing_mode("PAY_PER_REQUEST")' in drafts["01.02"]
    assert 'iam.may_exactly(iam.grant(["dynamodb:GetItem"], [table["TableArn"]]))' in drafts["01.03"]
    assert 'iam.trusted_only_by("lambda.amazonaws.com")' in drafts["01.03"]
    function = drafts["01.04"]
    assert "awslambda.execution_role(role)" in function  # references written as references
    assert 'awslambda.environment(TABLE_NAME=table["TableName"])' in function
    assert "awslambda.memory(256)" in function and 'awslambda.runtime("python3.12")' in function
    assert "awslambda.timeout(" not in function  # left as AWS gives it: not the solution's choice
    assert 'dlq = step.find("01_05_dlq", sqs.QUEUE' in drafts["01.05"]
    assert "sqs.dead_letter_queue(dlq, 3)" in drafts["01.05"]  # another output of the step, by reference

    done = subprocess.run(
        [STEPEVAL, "mutate", "--lab", str(lab_dir), "--json"], capture_output=True, text=True, timeout=600
    )
    run = json.loads(done.stdout)
    assert run["unsolved"] == []  # every draft passes its solution
    outcomes = {m["id"]: m["outcome"] for m in run["mutants"]}
    assert {m: outcomes.get(m) for m in KILLED} == dict.fromkeys(KILLED, "killed")
    assert [s["score"] for s in run["steps"]] == [1.0] * 5, run["steps"]
    assert done.returncode == 0, done.stderr


def test_new_from_solution_prints_the_score_and_refuses_what_it_cannot_draft(lab_dir: Path) -> None:
    new = [STEPEVAL, "new", "--lab", str(lab_dir), "--from-solution"]
    done = subprocess.run([*new, "01.01"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {lab_dir}/evaluation/boto3/01_01.py (a draft")
    assert "mutation score 100%: 2 killed, 0 survived" in " ".join(done.stdout.split())
    again = subprocess.run([*new, "01.01"], capture_output=True, text=True)
    assert again.returncode == 2
    assert again.stderr.strip().splitlines() == [
        f"stepeval: step 01.01: {lab_dir}/evaluation/boto3/01_01.py already exists; --force replaces it with a draft"
    ]
    unknown = subprocess.run([*new, "07.01"], capture_output=True, text=True)
    assert unknown.returncode == 2 and len(unknown.stderr.strip().splitlines()) == 1
    (lab_dir / "solution" / "boto3" / "01_02.py").unlink()
    missing = subprocess.run([*new, "01.03"], capture_output=True, text=True, timeout=300)
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines() == [
        f"stepeval: {lab_dir}: step 01.02 has no solution (solution/boto3/01_02.py)"
    ]
    (lab_dir / "solution" / "boto3" / "01_02.py").write_text(
        "async def run(session, context, logger):\n    return {'error': 'denied', 'code': 'AccessDenied'}\n"
    )
    failing = subprocess.run([*new, "01.02"], capture_output=True, text=True, timeout=300)
    assert failing.returncode == 2 and len(failing.stderr.strip().splitlines()) == 1
    assert "step 01.02" in failing.stderr and "AccessDenied" in failing.stderr


def test_a_string_output_is_read_off_the_resource_it_comes_from(tmp_path: Path) -> None:
    shutil.copytree(LABS / "solutions_only", tmp_path / "lab")
    drafts = _drafts(tmp_path / "lab", force=True)  # in place of the lab's own modules
    assert 'queue = step.find("01_01_queue", sqs.QUEUE, [' in drafts["01.01"]
    assert 'step.value("01_01_queue_arn", (queue or {}).get("QueueArn"), [values.is_arn("sqs")])' in drafts["01.01"]
    assert 'step.input_value("01_01_queue_arn")' in drafts["01.02"]
    assert "sqs.dead_letter_queue(dlq, 5)" in drafts["01.02"]  # the queue the step changed, found again
    done = subprocess.run(
        [STEPEVAL, "mutate", "--lab", str(tmp_path / "lab"), "--json"], capture_output=True, text=True, timeout=600
    )
    run = json.loads(done.stdout)
    assert run["unsolved"] == [] and [s["score"] for s in run["steps"]] == [1.0, 1.0], run["steps"]
