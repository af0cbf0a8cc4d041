"""`stepeval new` writes a module in the kit's shape, a solution and a mistakes skeleton, and never overwrites."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.commands.lint import lint_module, lint_solutions
from harness.commands.scaffold import scaffold
from harness.core.errors import BadInput
from harness.core.lab import load_lab
from harness.inside.loader import load_step
from tests.conftest import STEPEVAL

pytestmark = [pytest.mark.process, pytest.mark.moto]

REPO = Path(__file__).parents[2]


@pytest.fixture
def lab_dir(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "specs", tmp_path / "specs")
    return tmp_path


def test_new_writes_a_module_that_loads_and_whose_unwritten_outputs_lint_names(lab_dir: Path) -> None:
    done = subprocess.run([STEPEVAL, "new", "02.04", "--lab", str(lab_dir)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    module = lab_dir / "evaluation" / "boto3" / "02_04.py"
    solution = lab_dir / "solution" / "boto3" / "02_04.py"
    assert done.stdout.splitlines() == [f"wrote {p}" for p in (module, solution, lab_dir / "scenarios" / "02_04.py")]
    text = module.read_text()
    assert text.startswith('"""Create private subnet 10.0.3.0/24')
    assert 'vpc = step.input("02_01_vpc", ec2.VPC)' in text
    for output in ("02_04_private_subnet", "02_04_eip", "02_04_nat", "02_04_private_rt"):
        assert f'step.find("{output}", ' in text
    load_step(module)
    lab = load_lab(lab_dir)
    unwritten = [p.message.split(" has no requirement")[0] for p in lint_module(lab.steps["02.04"])]
    assert unwritten == [
        f"unwritten: output {name}" for name in ("02_04_private_subnet", "02_04_eip", "02_04_nat", "02_04_private_rt")
    ]


def test_new_refuses_to_overwrite(lab_dir: Path) -> None:
    lab = load_lab(lab_dir)
    written = scaffold(lab.steps["01.01"], lab.root, lab.handle_types)
    written[0].write_text("# the author's own work\n")
    with pytest.raises(BadInput, match="never overwrites"):
        scaffold(lab.steps["01.01"], lab.root, lab.handle_types)
    assert written[0].read_text() == "# the author's own work\n"
    done = subprocess.run([STEPEVAL, "new", "01.01", "--lab", str(lab_dir)], capture_output=True, text=True)
    assert done.returncode == 2 and "never overwrites" in done.stderr
    assert "already exist;" in done.stderr and "exist(s)" not in done.stderr  # the three files, in the plural


def test_one_existing_file_is_named_in_the_singular(lab_dir: Path) -> None:
    lab = load_lab(lab_dir)
    written = scaffold(lab.steps["01.01"], lab.root, lab.handle_types)
    for path in written[1:]:
        path.unlink()
    with pytest.raises(BadInput, match=f"step 01.01: {written[0]} already exists; stepeval new never overwrites"):
        scaffold(lab.steps["01.01"], lab.root, lab.handle_types)


def test_a_type_the_kit_does_not_know_gets_a_todo_that_check_reports(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "x.yaml").write_text(
        'project: x\nobjectives:\n  - id: "01"\n    steps:\n      - id: "01"\n'
        "        outputs: [{name: 01_01_stream, type: AWS::Kinesis::Stream}, {name: 01_01_vpc, type: AWS::EC2::VPC}]\n"
    )
    lab = load_lab(tmp_path)
    module, solution, scenario = scaffold(lab.steps["01.01"], lab.root, lab.handle_types)
    assert 'step.todo("01_01_stream",\n                  "no kit Kind for AWS::Kinesis::Stream' in module.read_text()
    assert 'step.find("01_01_vpc", ec2.VPC, [' in module.read_text()
    assert "kinesis:CreateStream, ec2:CreateVpc" in solution.read_text()
    assert '# {"name": "01_01_vpc", "type": "AWS::EC2::VPC", "id": ...},' in solution.read_text()
    assert "@mistake" in scenario.read_text() and "@solve" not in scenario.read_text()
    load_step(solution)
    assert [p.message for p in lint_solutions(lab)] == [
        "unwritten: the solution still returns stepeval new's placeholder error"
    ]
    load_step(module)
    problems = [p.message for p in lint_module(lab.steps["01.01"])]  # what is left to write, each named
    assert len(problems) == 2 and problems[0].startswith("unfinished: no kit Kind for AWS::Kinesis::Stream")
    assert problems[1].startswith("unwritten: output 01_01_vpc has no requirement (any ec2.VPC would pass)")


def test_the_creating_call_and_several_outputs_of_one_type(tmp_path: Path) -> None:
    """The solution names the call that makes each type (not rds:AddRoleToDBInstance, which the DB instance's schema
    lists first); two outputs of one type are one joint find_all, each with its own requirements to fill."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "x.yaml").write_text(
        'project: x\nobjectives:\n  - id: "01"\n    steps:\n      - id: "01"\n'
        "        outputs: [{name: 01_01_db, type: AWS::RDS::DBInstance}, {name: 01_01_a, type: AWS::EC2::Subnet},\n"
        "                  {name: 01_01_ip, type: AWS::EC2::EIP}, {name: 01_01_b, type: AWS::EC2::Subnet}]\n"
    )
    lab = load_lab(tmp_path)
    module, solution, _scenario = scaffold(lab.steps["01.01"], lab.root, lab.handle_types)
    assert "rds:CreateDBInstance, ec2:CreateSubnet, ec2:AllocateAddress" in solution.read_text()
    text = module.read_text()
    assert 'step.find("01_01_db", rds.DB_INSTANCE, [' in text and 'step.find("01_01_ip", ec2.EIP, [' in text
    joint = text[text.index("step.find_all(ec2.SUBNET, {") :]
    assert joint.index('"01_01_a": [') < joint.index('"01_01_b": [') < joint.index("})")
    assert 'step.find("01_01_a"' not in text and 'step.find("01_01_b"' not in text
    load_step(module)
    unwritten = [p.message.split(" has no requirement")[0] for p in lint_module(lab.steps["01.01"])]
    assert unwritten == [f"unwritten: output 01_01_{name}" for name in ("db", "a", "b", "ip")]


def test_a_generated_lab_plays_without_a_traceback(tmp_path: Path) -> None:
    """`stepeval test` on fresh scaffolds: the solutions are unwritten (reported as broken), nothing crashes."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "x.yaml").write_text(
        'project: x\nobjectives:\n  - id: "01"\n    steps:\n      - id: "01"\n'
        "        outputs: [{name: 01_01_stream, type: AWS::Kinesis::Stream}]\n"
        '      - id: "02"\n        inputs: [01_01_stream]\n'
        "        outputs: [{name: 01_02_vpc, type: AWS::EC2::VPC}]\n"
    )
    for key in ("01.01", "01.02"):
        assert subprocess.run([STEPEVAL, "new", key, "--lab", str(tmp_path)], capture_output=True).returncode == 0
    command = [STEPEVAL, "test", "--json", "--lab", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    results = json.loads(done.stdout)
    negatives = [r for r in results if r["kind"] == "negative"]
    assert [r["got"] for r in negatives] == ["fail", "fail"]  # the evaluators answer; the TODO is the issue
    assert all("not written yet" in r["issue"] for r in negatives)
    unwritten = [r for r in results if r["kind"] != "negative"]
    assert unwritten and all(r["got"] == "broken" for r in unwritten)
    assert "step 01.01: solution 01_01.py returned an error: TODO: this solution is not written yet" in (
        next(r["detail"] for r in unwritten if r["scenario"] == "01_01")
    )
    assert "NotImplementedError" in next(r["detail"] for r in unwritten if r["scenario"] == "common_mistake")


def test_string_handles_get_their_value_and_a_todo(tmp_path: Path) -> None:
    shutil.copytree(REPO / "tests" / "labs" / "solutions_only" / "specs", tmp_path / "specs")
    lab = load_lab(tmp_path)
    first = scaffold(lab.steps["01.01"], lab.root, lab.handle_types)[0].read_text()
    second = scaffold(lab.steps["01.02"], lab.root, lab.handle_types)[0].read_text()
    assert 'step.todo("01_01_queue_arn",\n                  "find the value and judge it: step.value(' in first
    assert 'queue_arn = step.input_value("01_01_queue_arn")' in second
