"""A lab's shared helpers (`evaluation/boto3/_lib/`): its modules import them relatively, nothing else beside them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.commands.check import check_lab
from harness.commands.lint import lint_lab
from harness.core.account import Account
from harness.core.contract import ContextInput
from harness.core.lab import load_lab
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner

pytestmark = pytest.mark.process

SPEC = """\
project: lib-lab
objectives:
  - id: "01"
    steps:
      - {id: "01", outputs: [{name: 01_01_vpc, type: AWS::EC2::VPC}]}
      - {id: "02", outputs: [{name: 01_02_vpc, type: AWS::EC2::VPC}]}
"""
RESULT = '{"validated": [{"name": NAME, "type": "AWS::EC2::VPC", "id": "vpc-1", "status": "found"}], ' + (
    '"success": True, "message": MESSAGE, "failure_context": None}'
)


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")


def lab_with_lib(root: Path, step_two_import: str) -> Path:
    write(root, "specs/lib-lab.yaml", SPEC)
    write(root, "evaluation/boto3/_lib/__init__.py", "")
    write(root, "evaluation/boto3/_lib/words.py", "def greeting(name):\n    return f'shared helper for {name}'\n")
    for stem, imports in (("01_01", "from ._lib.words import greeting"), ("01_02", step_two_import)):
        name = f"{stem[:2]}_{stem[3:]}_vpc"
        body = RESULT.replace("NAME", repr(name)).replace("MESSAGE", f"greeting({name!r})")
        write(root, f"evaluation/boto3/{stem}.py", f"{imports}\n\n\nasync def run(session, context, logger):\n"
              f"    return {body}\n")  # fmt: skip
    return root


def test_a_module_imports_its_labs_helpers(tmp_path: Path, pool: WorkerPool, sandbox: Account) -> None:
    lab = load_lab(lab_with_lib(tmp_path, "from ._lib import words\ngreeting = words.greeting"))
    runner = Runner(lab, pool)
    for key, name in (("01.01", "01_01_vpc"), ("01.02", "01_02_vpc")):
        answer = runner.evaluate(key, ContextInput(), sandbox)
        assert answer.status == "pass", answer.error
        assert answer.message == f"shared helper for {name}"


def test_a_sibling_step_cannot_be_imported(tmp_path: Path, pool: WorkerPool, sandbox: Account) -> None:
    lab = load_lab(lab_with_lib(tmp_path, "from . import _01_01 as greeting"))
    answer = Runner(lab, pool).evaluate("01.02", ContextInput(), sandbox)
    assert answer.status == "error" and answer.error is not None and answer.error.kind == "load"
    assert "cannot import name '_01_01'" in answer.error.detail


def test_an_absolute_import_of_the_helpers_says_how(tmp_path: Path, pool: WorkerPool, sandbox: Account) -> None:
    lab = load_lab(lab_with_lib(tmp_path, "from _lib.words import greeting"))
    answer = Runner(lab, pool).evaluate("01.02", ContextInput(), sandbox)
    assert answer.error is not None and answer.error.kind == "load"
    assert "import the lab's helpers relatively: from ._lib import" in answer.error.detail


def test_two_labs_helpers_do_not_mix(tmp_path: Path, pool: WorkerPool, sandbox: Account) -> None:
    first = lab_with_lib(tmp_path / "first", "from ._lib.words import greeting")
    second = lab_with_lib(tmp_path / "second", "from ._lib.words import greeting")
    write(second, "evaluation/boto3/_lib/words.py", "def greeting(name):\n    return f'second lab for {name}'\n")
    for root, expected in ((first, "shared helper for 01_01_vpc"), (second, "second lab for 01_01_vpc")):
        assert Runner(load_lab(root), pool).evaluate("01.01", ContextInput(), sandbox).message == expected


def test_check_and_lint_read_the_helpers(tmp_path: Path) -> None:
    root = lab_with_lib(tmp_path, "from ._lib.words import greeting")
    write(root, "evaluation/boto3/_lib/writes.py", "def oops(session):\n    session.client('ec2').create_vpc()\n")
    problems = [str(p) for p in lint_lab(load_lab(root))]
    assert problems == [
        f"{root / 'evaluation/boto3/_lib/writes.py'}:2: the lab's shared helpers: create_vpc() changes AWS: "
        "evaluation code may only read (the harness refuses it)"
    ]
    check_problems, _ = check_lab(root)
    assert check_problems == problems


def test_a_changed_helper_judges_the_next_evaluation(tmp_path: Path, pool: WorkerPool, sandbox: Account) -> None:
    root = lab_with_lib(tmp_path, "from ._lib.words import greeting")
    runner = Runner(load_lab(root), pool)
    assert runner.evaluate("01.01", ContextInput(), sandbox).message == "shared helper for 01_01_vpc"
    write(root, "evaluation/boto3/_lib/words.py", "def greeting(name):\n    return f'changed helper for {name}'\n")
    assert runner.evaluate("01.01", ContextInput(), sandbox).message == "changed helper for 01_01_vpc"
