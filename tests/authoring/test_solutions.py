"""Reference solutions in the platform's format (solution/boto3/) played as each step's solve, on a lab that holds
only a spec, solution/boto3/ and evaluation/boto3/ (tests/labs/solutions_only)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.authoring.lanes import moto_lanes
from harness.authoring.playthrough import ScenarioResult, load_scenarios, play, play_lanes
from harness.authoring.solution_player import play_solution, solution_played
from harness.authoring.solutions import SolutionError
from harness.core.errors import LabError
from harness.core.lab import load_lab
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner
from tests.conftest import LABS, STEPEVAL

pytestmark = [pytest.mark.process, pytest.mark.moto]

LAB_DIR = LABS / "solutions_only"
REPO = Path(__file__).parents[2]
QUEUE = "https://sqs.{region}.amazonaws.com/123456789012/orders"
OK = """
from botocore.exceptions import ClientError


async def run(session, context, logger):
    try:
        sqs = session.client("sqs")
        url = sqs.create_queue(QueueName="orders", Attributes={"VisibilityTimeout": "60"})["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        return {"success": True, "resources": RESOURCES}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
"""
BOTH = (
    '[{"name": "01_01_queue", "type": "AWS::SQS::Queue", "id": url}, '
    '{"name": "01_01_queue_arn", "type": "string", "id": arn}]'
)


@pytest.fixture
def lab_dir(tmp_path: Path) -> Path:
    return Path(shutil.copytree(LAB_DIR, tmp_path / "lab"))


@pytest.fixture(scope="module")
def tested_in_eu_west_1(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """`stepeval test --json --region eu-west-1` on an unchanged copy of the lab, played once for the tests that
    read it."""
    lab = shutil.copytree(LAB_DIR, tmp_path_factory.mktemp("eu-west-1") / "lab")
    command = [STEPEVAL, "test", "--lab", str(lab), "--json", "--region", "eu-west-1"]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def played(lab_dir: Path, pool: WorkerPool, key: str | None = None) -> dict[tuple[str, str], ScenarioResult]:
    lab = load_lab(lab_dir)
    results = play(lab, Runner(lab, pool), select=None if key is None else key.__eq__)
    return {(r.step, r.scenario): r for r in results}


def test_a_lab_of_spec_solutions_and_evaluations_plays_every_step_from_its_solutions(pool: WorkerPool) -> None:
    results = played(LAB_DIR, pool)
    assert [(step, name, r.kind, r.got, r.ok) for (step, name), r in results.items()] == [
        ("01.01", "untouched account", "negative", "fail", True),
        ("01.01", "01_01_attributes", "solve", "pass", True),  # the other reference solution: it must pass too
        ("01.01", "01_01", "solve", "pass", True),
        ("01.02", "untouched account", "negative", "fail", True),
        ("01.02", "01_02", "solve", "pass", True),
    ]
    solve = results["01.02", "01_02"]
    assert [e.model_dump() for e in solve.events] == [
        {"type": "AWS::SQS::Queue", "id": QUEUE.format(region="us-east-1") + "-dlq"}
    ]
    # the solution's resources, ids in AWS's form, were the next step's resolved: its evaluation re-verified them
    checks = {(c.handle, c.check): c.ok for c in solve.answer.checks}
    assert checks["01_01_queue", "exists"] and checks["01_01_queue_arn", "the queue's ARN"]
    first = results["01.01", "01_01"].answer
    assert {h.name: h.id for h in first.resolved} == {
        "01_01_queue": QUEUE.format(region="us-east-1"),
        "01_01_queue_arn": "arn:aws:sqs:us-east-1:123456789012:orders",  # a "string" output, validated
    }


RAISED = "step 01.01: solution 01_01.py raised"


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ('raise RuntimeError("boom")', RAISED),
        ('return {"error": "no queue", "code": "QueueDeletedRecently"}', "returned an error: QueueDeletedRecently"),
        (
            'return {"success": True, "resources": '
            + BOTH[:-1]
            + ', {"name": "01_01_topic", "type": "string", "id": "x"}]}',
            "01_01_topic is not an output of step 01.01",
        ),
        (
            'return {"success": True, "resources": [{"name": "01_01_queue", "type": "AWS::SQS::Queue", "id": url}]}',
            "returned no resource named 01_01_queue_arn",
        ),
        (
            'return {"success": True, "resources": [{"name": "01_01_queue", "type": "string", "id": url}, '
            '{"name": "01_01_queue_arn", "type": "string", "id": arn}]}',
            "01_01_queue is a AWS::SQS::Queue in the spec, not a string",
        ),
        ("return None", "returned NoneType, not a dict"),
    ],
    ids=["raises", "error", "not-an-output", "missing-output", "wrong-type", "not-a-dict"],
)
def test_a_solution_that_breaks_the_contract_fails_naming_the_step_and_the_name(
    lab_dir: Path, pool: WorkerPool, body: str, said: str
) -> None:
    """Each break, as the player judges it; `stepeval test --json` says so too (run for one of them: the command
    prints the player's detail, whichever break it names)."""
    text = OK.replace('return {"success": True, "resources": RESOURCES}', body)
    (lab_dir / "solution" / "boto3" / "01_01.py").write_text(text)
    (lab_dir / "solution" / "boto3" / "01_01_attributes.py").unlink()
    results = played(lab_dir, pool, "01.01")
    solve = results["01.01", "01_01"]
    assert (solve.got, solve.ok) == ("broken", False)
    assert said in solve.detail
    if said != RAISED:
        return
    done = subprocess.run(
        [STEPEVAL, "test", "--lab", str(lab_dir), "--json"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert any(r["scenario"] == "01_01" and said in r["detail"] for r in json.loads(done.stdout))


def test_a_solution_that_raises_is_shown_from_its_own_line(lab_dir: Path, pool: WorkerPool) -> None:
    (lab_dir / "solution" / "boto3" / "01_01_attributes.py").write_text(
        "async def run(session, context, logger):\n    return {'success': True, 'resources': [1 / 0]}\n"
    )
    detail = played(lab_dir, pool, "01.01")["01.01", "01_01_attributes"].detail
    assert "01_01_attributes.py raised" in detail and "line 2, in run" in detail and "ZeroDivisionError" in detail


def test_what_a_solution_prints_never_reaches_json_output(
    lab_dir: Path, tested_in_eu_west_1: subprocess.CompletedProcess[str]
) -> None:
    """01_01.py prints; `test --json` plays it, `mutate --json` many times (its mutants too), and stdout is still
    one JSON object."""
    mutated = subprocess.run(
        [STEPEVAL, "mutate", "--lab", str(lab_dir), "--json"], capture_output=True, text=True, timeout=300
    )
    for done in (tested_in_eu_west_1, mutated):
        assert done.returncode == 0, done.stderr
        json.loads(done.stdout)
        assert "made http://127.0.0.1:" in done.stderr


def test_mutate_plays_a_solutions_mutants_and_takes_marks_from_beside_the_solutions(lab_dir: Path) -> None:
    evaluation = lab_dir / "evaluation" / "boto3" / "01_01.py"
    evaluation.write_text(evaluation.read_text().replace("            sqs.visibility_timeout(60),\n", ""))
    command = [STEPEVAL, "mutate", "--lab", str(lab_dir), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    report = json.loads(done.stdout)
    # the attribute's key changed, and its value given a plausible other one
    survivors = [
        "CreateQueue Attributes[VisibilityTimeout]->VisibilityTimeout-x",
        "CreateQueue Attributes.VisibilityTimeout=120",
    ]
    assert done.returncode == 1 and [m["id"] for m in report["mutants"] if m["outcome"] == "survived"] == survivors
    killed = {m["id"] for m in report["mutants"] if m["outcome"] == "killed"}
    assert "SetQueueAttributes Attributes[RedrivePolicy]->RedrivePolicy-x" in killed
    (lab_dir / "solution" / "equivalent.yaml").write_text(
        '"01.01":\n  - {mutant: "VisibilityTimeout", reason: "the timeout is not asked for here"}\n'
        '"01.02":\n  - {mutant: "NoSuchCall", reason: "stale"}\n'
    )
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    report = json.loads(done.stdout)
    marked = [m for m in report["mutants"] if m["outcome"] == "equivalent"]
    assert [(m["id"], m["reason"]) for m in marked] == [(s, "the timeout is not asked for here") for s in survivors]
    assert report["stale_marks"] == ["01.02: @equivalent('NoSuchCall') matches no mutant"]


@pytest.mark.parametrize(
    ("where", "text", "problem"),
    [
        ("solution/boto3/09_09.py", "async def run(session, context, logger): ...\n", "no step 09.09 in this lab"),
        ("solution/boto3/helpers.py", "", "not a step key"),
        ("solution/boto3/01_02.py", "def run(session, context, logger): ...\n", "run is not an async def"),
        ("solution/equivalent.yaml", '"07.01": []\n', "no step 07.01 in this lab"),
        ("solution/equivalent.yaml", '"01.01": [{mutant: x}]\n', "expected a list of {mutant: PATTERN, reason: WHY}"),
        (
            "scenarios/01_01.py",
            "from harness.authoring.scenarios import solve\n\n\n@solve\ndef mine(aws, handles): ...\n",
            "@solve mine beside",
        ),
    ],
)
def test_a_wrong_solution_file_is_a_lab_error_naming_it(lab_dir: Path, where: str, text: str, problem: str) -> None:
    (lab_dir / where).parent.mkdir(parents=True, exist_ok=True)
    (lab_dir / where).write_text(text)
    with pytest.raises(LabError) as error:
        load_scenarios(load_lab(lab_dir))
    assert any(problem in line and where.split("/")[-1] in line for line in error.value.problems), error.value.problems


def test_a_scenario_file_beside_a_solution_adds_mistakes_played_after_the_solution(
    lab_dir: Path, pool: WorkerPool
) -> None:
    (lab_dir / "scenarios").mkdir()
    (lab_dir / "scenarios" / "01_01.py").write_text(
        "from harness.authoring.scenarios import mistake\n\n\n"
        "@mistake(after_solve=True, issue='(?i)visibility timeout')\n"
        "def timeout_changed_afterwards(aws, handles):\n"
        "    sqs = aws.client('sqs')\n"
        "    url = sqs.get_queue_url(QueueName='orders')['QueueUrl']\n"
        "    sqs.set_queue_attributes(QueueUrl=url, Attributes={'VisibilityTimeout': '30'})\n"
    )
    results = played(lab_dir, pool, "01.01")
    mistake = results["01.01", "timeout_changed_afterwards"]
    assert (mistake.got, mistake.ok) == ("fail", True)
    assert [e.id for e in mistake.events] == [QUEUE.format(region="us-east-1")]  # the solution's, then the change


def test_the_solution_player_gives_a_step_what_the_solutions_before_it_resolved() -> None:
    lab = load_lab(LAB_DIR)
    with solution_played(lab, "01_02", region="eu-west-1") as step:
        assert {h.name: h.id for h in step.resolved} == {
            "01_01_queue": QUEUE.format(region="eu-west-1"),
            "01_01_queue_arn": "arn:aws:sqs:eu-west-1:123456789012:orders",
        }
        assert [e.id for e in step.events] == [QUEUE.format(region="eu-west-1") + "-dlq"]
        assert [h.model_dump() for h in step.resources] == [
            {"name": "01_02_dlq", "type": "AWS::SQS::Queue", "id": QUEUE.format(region="eu-west-1") + "-dlq"}
        ]
        assert [c.operation for c in step.calls] == ["CreateQueue", "SetQueueAttributes"]
        attributes = step.session.client("sqs").get_queue_attributes(
            QueueUrl=step.resources[0].id, AttributeNames=["QueueArn"]
        )["Attributes"]
        assert attributes["QueueArn"] == "arn:aws:sqs:eu-west-1:123456789012:orders-dlq"  # the state after the step
    assert play_solution(lab, "01.01").resources[0].id == QUEUE.format(region="us-east-1")


def test_the_solution_player_names_a_step_without_a_solution_and_a_solution_that_breaks(lab_dir: Path) -> None:
    (lab_dir / "solution" / "boto3" / "01_01.py").unlink()
    (lab_dir / "solution" / "boto3" / "01_01_attributes.py").write_text(
        "async def run(session, context, logger):\n    return {'error': 'denied', 'code': 'AccessDenied'}\n"
    )
    with pytest.raises(
        SolutionError, match=r"step 01\.01: solution 01_01_attributes\.py returned an error: AccessDenied"
    ):
        play_solution(load_lab(lab_dir), "01.02")
    (lab_dir / "solution" / "boto3" / "01_01_attributes.py").unlink()
    with pytest.raises(LabError, match=r"step 01\.01 has no solution"):
        play_solution(load_lab(lab_dir), "01.02")


def test_a_lab_plays_in_another_region(lab_dir: Path, tested_in_eu_west_1: subprocess.CompletedProcess[str]) -> None:
    done = tested_in_eu_west_1
    assert done.returncode == 0, done.stderr
    solves = [r for r in json.loads(done.stdout) if r["scenario"] == "01_01"]
    assert solves and all(r["ok"] for r in json.loads(done.stdout))
    bad = subprocess.run([STEPEVAL, "test", "--lab", str(lab_dir), "--region", "mars"], capture_output=True, text=True)
    assert bad.returncode == 2 and "'mars' is not an AWS region name" in bad.stderr


def test_the_pytest_plugin_plays_a_lab_with_no_scenario_files(lab_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "solution", "-p", "no:cacheprovider", "-q", "-rA"],
        cwd=lab_dir,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "5 passed" in done.stdout
    assert "solution/boto3/01_01.py::01_01_attributes" in done.stdout


@pytest.mark.parametrize(
    ("lab_dir", "steps"),
    [
        (REPO, ("01.01", "02.02", "02.04")),  # the bucket's location constraint, the zones "a" and "b", the NAT
        (REPO / "labs" / "serverless-api", ("01.01", "02.02")),  # the table (two solutions), the log streams' ARN
        (REPO / "labs" / "edge-audit", ("01.01", "01.02")),  # the bucket's location constraint, the S3 endpoint
    ],
    ids=["web-tier", "serverless-api", "edge-audit"],
)
def test_the_sample_labs_play_from_their_solutions_in_eu_west_1(lab_dir: Path, steps: tuple[str, ...]) -> None:
    lab = load_lab(lab_dir)
    with moto_lanes(lab, 2, region="eu-west-1") as lanes:
        assert {lane.account.region for lane in lanes} == {"eu-west-1"}
        results = play_lanes(lab, lanes, select=steps.__contains__)
    assert results and all(r.ok for r in results), [(r.step, r.scenario, r.detail) for r in results if not r.ok]
    solved = {r.step: r for r in results if r.scenario == r.step.replace(".", "_")}
    assert set(solved) == set(steps)  # each step played from its solution file
    if "02.02" in solved and lab_dir == REPO:
        zones = {c.actual for c in solved["02.02"].answer.checks if c.check == "availability zone"}
        assert zones == {"eu-west-1a", "eu-west-1b"}


RANDOM_SPEC = """project: random-names
objectives:
  - id: "01"
    steps:
      - id: "01"
        description: Create an on-demand DynamoDB table keyed by the string pk, with point-in-time recovery on.
        outputs: [{name: 01_01_table, type: "AWS::DynamoDB::Table"}]
"""
RANDOM_SOLUTION = """import uuid

from botocore.exceptions import ClientError


async def run(session, context, logger):
    name = f"orders-{uuid.uuid4().hex[:8]}"  # a new name at every play
    try:
        ddb = session.client("dynamodb")
        ddb.create_table(
            TableName=name, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        )
        ddb.get_waiter("table_exists").wait(TableName=name)  # botocore's own: 20 s apart, 25 times
        ddb.update_continuous_backups(
            TableName=name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
        return {"success": True, "resources": [{"name": "01_01_table", "type": "AWS::DynamoDB::Table", "id": name}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
"""
RANDOM_EVALUATION = """from harness.kit import dynamodb
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("01_01_table", dynamodb.TABLE, [
            dynamodb.keys(("pk", "S")), dynamodb.billing_mode(), dynamodb.point_in_time_recovery(),
        ])  # fmt: skip
    return step.result()
"""


def test_mutants_of_a_solution_that_names_at_random_change_only_what_they_change(tmp_path: Path) -> None:
    """Each play of the solution names its table anew: a mutant changes its call's key schema or PITR flag, not the
    table's name back to the first play's (a mutant of the create made a table the solution's waiter never saw, and
    waited botocore's 500 s; one of the later call missed the table: invalid, the score resting on the rest)."""
    lab = tmp_path / "lab"
    for path, text in {
        "specs/lab.yaml": RANDOM_SPEC,
        "solution/boto3/01_01.py": RANDOM_SOLUTION,
        "evaluation/boto3/01_01.py": RANDOM_EVALUATION,
    }.items():
        (lab / path).parent.mkdir(parents=True, exist_ok=True)
        (lab / path).write_text(text)
    command = [STEPEVAL, "mutate", "--lab", str(lab), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240)
    mutants = json.loads(done.stdout)["mutants"]
    outcomes = {m["id"]: m["outcome"] for m in mutants}
    assert outcomes["UpdateContinuousBackups PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled=false"] == (
        "killed"
    )
    assert outcomes["CreateTable KeySchema[0].KeyType=RANGE"] == "killed"
    assert [m["sentence"] for m in mutants if "ResourceNotFound" in m["sentence"]] == []
    assert done.returncode == 0, done.stdout[-2000:]
