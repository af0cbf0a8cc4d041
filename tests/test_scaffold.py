"""`stepeval new` writes a module in the kit's shape and a scenario skeleton, and never overwrites."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harness.errors import BadInput
from harness.lab import load_lab
from harness.lint import lint_module
from harness.loader import load_step
from harness.scaffold import scaffold
from tests.conftest import STEPEVAL

REPO = Path(__file__).parents[1]


@pytest.fixture
def lab_dir(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "specs", tmp_path / "specs")
    return tmp_path


def test_new_writes_a_module_that_loads_and_lints_clean(lab_dir: Path) -> None:
    done = subprocess.run([STEPEVAL, "new", "02.04", "--lab", str(lab_dir)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    module = lab_dir / "evaluation" / "boto3" / "02_04.py"
    assert done.stdout.splitlines() == [f"wrote {module}", f"wrote {lab_dir / 'scenarios' / '02_04.py'}"]
    text = module.read_text()
    assert text.startswith('"""Create private subnet 10.0.3.0/24')
    assert 'vpc = step.input("02_01_vpc", ec2.VPC)' in text
    for output in ("02_04_private_subnet", "02_04_eip", "02_04_nat", "02_04_private_rt"):
        assert f'step.find("{output}", ' in text
    load_step(module)
    lab = load_lab(lab_dir)
    assert lint_module(lab.steps["02.04"]) == []


def test_new_refuses_to_overwrite(lab_dir: Path) -> None:
    lab = load_lab(lab_dir)
    written = scaffold(lab.steps["01.01"], lab.root, lab.handle_types)
    written[0].write_text("# the author's own work\n")
    with pytest.raises(BadInput, match="never overwrites"):
        scaffold(lab.steps["01.01"], lab.root, lab.handle_types)
    assert written[0].read_text() == "# the author's own work\n"
    done = subprocess.run([STEPEVAL, "new", "01.01", "--lab", str(lab_dir)], capture_output=True, text=True)
    assert done.returncode == 2 and "never overwrites" in done.stderr


def test_a_type_the_kit_does_not_know_gets_a_todo(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "x.yaml").write_text(
        'project: x\nobjectives:\n  - id: "01"\n    steps:\n      - id: "01"\n'
        "        outputs: [{name: 01_01_table, type: AWS::DynamoDB::Table}]\n"
    )
    lab = load_lab(tmp_path)
    module, scenario = scaffold(lab.steps["01.01"], lab.root, lab.handle_types)
    assert "# TODO: the kit has no Kind for AWS::DynamoDB::Table yet" in module.read_text()
    assert "@solve" in scenario.read_text() and "@mistake(" in scenario.read_text()
    load_step(module)
