"""`stepeval lint` reads modules statically and names file, line and step for each planted problem."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.authoring.drafts.drafting import HEADER
from harness.commands.kit_names import missing_kit_names
from harness.commands.lint import lint_lab, tied_outputs
from harness.core.lab import load_lab
from tests.conftest import LABS

pytestmark = pytest.mark.process

PLANTED = LABS / "lint_planted"
MODULE = PLANTED / "evaluation" / "boto3" / "01_02.py"


def findings() -> list[str]:
    return [str(problem) for problem in lint_lab(load_lab(PLANTED))]


def test_every_planted_problem_is_reported_with_its_line() -> None:
    expected = {
        12: "put_bucket_policy() changes AWS",
        13: "boto3.client() makes a client without the handed session",
        14: "make_client() makes a client without the handed session",
        15: "time.sleep() blocks the worker",
        16: "sleep() blocks the worker",
        17: "delete() changes AWS",
        18: "handle '01_03_vpc' is neither an input nor an output of step 01.02",
    }
    module_findings = [f for f in findings() if f.startswith(f"{MODULE}:")]
    for line, message in expected.items():
        assert any(f.startswith(f"{MODULE}:{line}: step 01.02: {message}") for f in module_findings), (
            line,
            module_findings,
        )
    assert len(module_findings) == len(expected)


def test_a_run_of_the_wrong_shape_is_reported() -> None:
    module = PLANTED / "evaluation" / "boto3" / "01_03.py"
    assert f"{module}:4: step 01.03: run is not an async def; expected async def run(session, context, logger)" in (
        findings()
    )


def test_a_clean_module_has_no_findings() -> None:
    assert not [f for f in findings() if "01_01.py" in f]


def test_the_sample_lab_lints_clean() -> None:
    assert lint_lab(load_lab(Path(__file__).parents[2])) == []


def test_the_command_exits_1_with_one_line_per_problem() -> None:
    stepeval = Path(sys.executable).parent / "stepeval"
    done = subprocess.run([str(stepeval), "lint", "--lab", str(PLANTED)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stdout.splitlines() == findings()
    assert done.stderr.strip() == f"{len(findings())} problems"


def test_a_line_marked_ignore_is_not_reported() -> None:
    clean = PLANTED / "evaluation" / "boto3" / "01_01.py"
    assert "cache.delete()  # stepeval: ignore" in clean.read_text()
    assert not [f for f in findings() if f.startswith(f"{clean}:")]


def test_a_solution_imports_only_boto3_clienterror_and_the_standard_library(tmp_path: Path) -> None:
    lab_dir = Path(shutil.copytree(LABS / "solutions_only", tmp_path / "lab"))
    solution = lab_dir / "solution" / "boto3" / "01_02.py"
    solution.write_text(
        "import json\n"
        "import boto3.session\n"
        "import requests\n"
        "from botocore.exceptions import ClientError, WaiterError\n"
        "from harness.kit import sqs\n"
        "from . import helpers\n\n\n"
        "def run(session, context):\n"
        "    return {}\n"
    )
    found = [str(f) for f in lint_lab(load_lab(lab_dir))]
    rule = "a solution imports only boto3, botocore.exceptions.ClientError and the standard library"
    assert found == [
        f"{solution}:3: step 01.02: imports requests: {rule}",
        f"{solution}:4: step 01.02: imports botocore.exceptions.WaiterError: {rule}",
        f"{solution}:5: step 01.02: imports harness.kit.sqs: {rule}",
        f"{solution}:6: step 01.02: imports ..helpers: {rule}",
        f"{solution}:9: step 01.02: run(session, context) should be async def run(session, context, logger)",
    ]
    (lab_dir / "solution" / "boto3" / "07_01.py").write_text("async def run(session, context, logger): ...\n")
    assert any("07_01.py:1: step 07.01: not named after a step" in f for f in map(str, lint_lab(load_lab(lab_dir))))


def test_the_sample_labs_solutions_lint_clean() -> None:
    repo = Path(__file__).parents[2]
    for lab_dir in (repo, repo / "labs" / "serverless-api", repo / "labs" / "edge-audit", LABS / "solutions_only"):
        assert lint_lab(load_lab(lab_dir)) == [], lab_dir


def test_stepeval_test_fails_a_lab_whose_solution_breaks_the_import_rule(tmp_path: Path) -> None:
    """The platform refuses such a solution: `stepeval test` plays the lab, names the import first and exits 1."""
    lab_dir = Path(shutil.copytree(LABS / "solutions_only", tmp_path / "lab"))
    solution = lab_dir / "solution" / "boto3" / "01_02.py"
    solution.write_text("import yaml  # not the platform's\n" + solution.read_text())
    stepeval = Path(sys.executable).parent / "stepeval"
    done = subprocess.run([str(stepeval), "test", "--lab", str(lab_dir)], capture_output=True, text=True, timeout=300)
    rule = "a solution imports only boto3, botocore.exceptions.ClientError and the standard library"
    assert done.returncode == 1, done.stdout
    assert done.stdout.splitlines()[0] == f"{solution}:1: step 01.02: imports yaml: {rule}"
    assert "all as expected" in done.stdout  # its scenarios played as usual


def test_an_unread_draft_is_a_problem_for_lint_and_check(tmp_path: Path) -> None:
    """`stepeval new --from-solution`'s header says to read the draft and delete it; until then check fails."""
    lab_dir = Path(shutil.copytree(LABS / "solutions_only", tmp_path / "lab"))
    module = lab_dir / "evaluation" / "boto3" / "01_02.py"
    module.write_text(HEADER.format(key="01.02", stem="01_02") + module.read_text())
    draft = f"{module}:1: step 01.02: still the unread draft `stepeval new --from-solution` wrote"
    assert [str(f) for f in lint_lab(load_lab(lab_dir))] == [draft + ": prune it, delete its DRAFT comment"]
    stepeval = Path(sys.executable).parent / "stepeval"
    done = subprocess.run([str(stepeval), "check", "--lab", str(lab_dir)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and draft in done.stdout


SKELETON_SPEC = """project: skeleton
objectives:
  - id: "01"
    steps:
      - id: "01"
        description: >-
          Create two SQS queues, one for orders and one for its dead letters; the orders queue sends a message that
          failed three times to the dead-letter queue.
        outputs: [{name: 01_01_orders, type: AWS::SQS::Queue}, {name: 01_01_dlq, type: AWS::SQS::Queue}]
      - id: "02"
        inputs: [01_01_orders]
        outputs: [{name: 01_02_topic, type: AWS::SNS::Topic}]
"""


def stepeval(*args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "stepeval"), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@pytest.fixture
def skeleton(tmp_path: Path) -> Path:
    """A lab whose two steps are untouched `stepeval new` skeletons."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "skeleton.yaml").write_text(SKELETON_SPEC)
    for key in ("01.01", "01.02"):
        assert stepeval("new", key, "--lab", tmp_path).returncode == 0
    return tmp_path


def test_check_and_lint_name_each_unwritten_part_of_a_new_step(skeleton: Path) -> None:
    modules, solutions, scenarios = (skeleton / part for part in ("evaluation/boto3", "solution/boto3", "scenarios"))
    expected = [
        f"{modules}/01_01.py:14: step 01.01: unwritten: output 01_01_orders has no requirement (any sqs.QUEUE would"
        " pass): write the requirements the instruction states",
        f"{modules}/01_01.py:17: step 01.01: unwritten: output 01_01_dlq has no requirement (any sqs.QUEUE would"
        " pass): write the requirements the instruction states",
        f"{modules}/01_02.py:11: step 01.02: unwritten: output 01_02_topic has no requirement (any sns.TOPIC would"
        " pass): write the requirements the instruction states",
        f"{scenarios}/01_01.py:8: step 01.01: unwritten: mistake common_mistake still raises NotImplementedError",
        f"{scenarios}/01_02.py:8: step 01.02: unwritten: mistake common_mistake still raises NotImplementedError",
        f"{solutions}/01_01.py:10: step 01.01: unwritten: the solution still returns stepeval new's placeholder error",
        f"{solutions}/01_02.py:10: step 01.02: unwritten: the solution still returns stepeval new's placeholder error",
    ]
    lint = stepeval("lint", "--lab", skeleton)
    assert (lint.returncode, lint.stdout.splitlines(), lint.stderr) == (1, expected, "7 problems\n")
    check = stepeval("check", "--lab", skeleton)
    assert (check.returncode, sorted(check.stdout.splitlines())) == (1, sorted(expected))
    assert check.stderr == "2 steps, 2 modules: 7 problems\n"


def test_a_written_step_is_not_flagged_and_a_leftover_todo_is(skeleton: Path) -> None:
    module = skeleton / "evaluation" / "boto3" / "01_02.py"
    text = module.read_text()
    module.write_text(text.replace("        ])", "            sns.encrypted(),\n        ])"))
    solution = skeleton / "solution" / "boto3" / "01_02.py"
    placeholder = '        return {"error": "this solution is not written yet"'
    solution.write_text(solution.read_text().replace(placeholder, "        # return {"))
    scenario = skeleton / "scenarios" / "01_02.py"
    scenario.write_text(scenario.read_text().replace("raise NotImplementedError(", "print("))
    found = [line for line in stepeval("lint", "--lab", skeleton).stdout.splitlines() if "step 01.02" in line]
    assert found == [
        f"{module}:12: step 01.02: unwritten: stepeval new's TODO is still here",
        f"{scenario}:6: step 01.02: unwritten: mistake common_mistake's issue is still the placeholder",
    ]


def test_the_solution_skeleton_holds_the_whole_instruction(skeleton: Path) -> None:
    head = (skeleton / "solution" / "boto3" / "01_01.py").read_text().split('"""')[1]
    assert " ".join(head.split()).endswith("sends a message that failed three times to the dead-letter queue.")


def test_an_output_another_requirement_ties_down_is_not_unwritten() -> None:
    source = (
        "async def run(session, context, logger):\n"
        "    step = Step(session, context, logger)\n"
        "    dlq = step.output('01_01_dlq')\n"
        "    trail_bucket = step.find('01_01_bucket', s3.BUCKET, [])\n"
        "    step.find('01_01_queue', sqs.QUEUE, [sqs.dead_letter_queue(dlq)])\n"
        "    step.find('01_01_dlq', sqs.QUEUE, [])\n"
        "    step.find('01_01_trail', cloudtrail.TRAIL, [cloudtrail.to_bucket(trail_bucket)])\n"
        "    lone = step.find('01_01_topic', sns.TOPIC, [])\n"
    )
    assert tied_outputs(ast.parse(source)) == {"01_01_dlq", "01_01_bucket"}


def test_a_kit_name_that_does_not_exist_is_named_with_the_closest_one(tmp_path: Path) -> None:
    """A typo in a kit function loads and would fail only when a learner's step is judged: lint and check say it."""
    lab_dir = Path(shutil.copytree(LABS / "solutions_only", tmp_path / "lab"))
    module = lab_dir / "evaluation" / "boto3" / "01_02.py"
    module.write_text(
        "import harness.kit.sqs as queues\nfrom harness.kit import s3\n"
        "from harness.kit.s3 import BUCKET, versioning_enable\n"
        + module.read_text()
        + "\n\ndef later():\n"
        + "    return s3.versioning_on(), s3.versioning_enabled(), queues.QUEU, harness.kit.sns.TOPIC\n"
    )
    lines = module.read_text().splitlines()
    last = len(lines)
    assert [str(f) for f in lint_lab(load_lab(lab_dir))] == [
        f"{module}:3: step 01.02: kit.s3.versioning_enable does not exist in harness.kit.s3"
        " (did you mean kit.s3.versioning_enabled?)",
        f"{module}:{last}: step 01.02: kit.s3.versioning_on does not exist in harness.kit.s3"
        " (did you mean kit.s3.versioning_enabled?)",
        f"{module}:{last}: step 01.02: kit.sqs.QUEU does not exist in harness.kit.sqs (did you mean kit.sqs.QUEUE?)",
    ]
    module.write_text(module.read_text().replace(", versioning_enable\n", "\n"))  # check lints a module that loads
    done = stepeval("check", "--lab", lab_dir)
    assert done.returncode == 1 and f"{module}:{last}: step 01.02: kit.s3.versioning_on does not exist" in done.stdout


def test_the_kit_s_own_and_renamed_names_are_not_flagged() -> None:
    tree = ast.parse(
        "from harness import kit\nfrom harness.kit import grants, identity\nfrom harness.kit.s3 import BUCKET\n"
        "kit.s3.BUCKET.type, grants.Finding, grants.PolicyFinding, identity.AccessVerdict, kit.step.Step\n"
    )
    assert missing_kit_names(tree) == []
