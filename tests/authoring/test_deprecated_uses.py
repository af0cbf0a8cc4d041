"""Every use of a moved name in a lab's files is named by reading them, where the runtime warning is never seen (an
evaluation module loads in the confined worker; a function body runs only if a test calls it): `check`, `lint`,
`test` and `run` say each one on stderr, and the exit code stays what the lab earns."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.authoring.deprecated_uses import deprecated_uses, lab_deprecated_uses
from harness.authoring.moved import DEPRECATED_NAMES, MOVED_NAMES, moved_warning
from tests.conftest import LABS, STEPEVAL, MotoAccount

MODULE = "harness.recorder is deprecated: import from harness.authoring.events (docs/user.md, 'The public API')"


def found(tmp_path: Path, source: str) -> list[tuple[int, str]]:
    path = tmp_path / "lab_file.py"
    path.write_text(source)
    return [(use.line, use.message) for use in deprecated_uses(path)]


def test_each_form_of_use_is_found_on_its_line(tmp_path: Path) -> None:
    source = """\
from harness.recorder import RULES, Rule as R
from harness.scenarios import *
from harness import recorder
import harness.recorder
import harness.scenarios as old
from harness.authoring.events import RULES as NEW


def later():
    return recorder.Rule, harness.recorder.from_params, old.mistake, recorder.nothing_like_this
"""
    assert found(tmp_path, source) == [
        (1, moved_warning("harness.recorder", "RULES")),
        (1, moved_warning("harness.recorder", "Rule")),
        (
            2,
            "harness.scenarios is deprecated: import from harness.authoring.scenarios (docs/user.md, 'The public API')",
        ),
        (3, MODULE),
        (4, MODULE),
        (
            5,
            "harness.scenarios is deprecated: import from harness.authoring.scenarios (docs/user.md, 'The public API')",
        ),
        (10, moved_warning("harness.recorder", "Rule")),
        (10, moved_warning("harness.recorder", "from_params")),
        (10, moved_warning("harness.scenarios", "mistake")),
    ]
    assert "use harness.authoring.events.EventRule" in found(tmp_path, source)[1][1]


def test_renamed_kit_names_are_found_in_each_form(tmp_path: Path) -> None:
    source = """\
from harness.kit.grants import Finding, PolicyFinding
from harness.kit import identity as ident
import harness.kit.grants


def later():
    return ident.Verdict, ident.AccessVerdict, harness.kit.grants.Finding
"""
    assert found(tmp_path, source) == [
        (1, moved_warning("harness.kit.grants", "Finding")),
        (7, moved_warning("harness.kit.grants", "Finding")),
        (7, moved_warning("harness.kit.identity", "Verdict")),
    ]
    assert "use harness.kit.grants.PolicyFinding" in found(tmp_path, source)[0][1]


def test_every_name_in_the_registry_is_found_so_a_new_rename_is_reported_unasked(tmp_path: Path) -> None:
    for module, names in DEPRECATED_NAMES.items():
        for name in names:
            assert found(tmp_path, f"from {module} import {name}\n") == [(1, moved_warning(module, name))]


def test_the_moved_table_in_the_docs_lists_the_registry() -> None:
    text = (Path(__file__).parents[2] / "docs" / "user.md").read_text()
    text = text[text.index("Moved or renamed in") :].split("\n\n#", 1)[0]
    rows = re.findall(r"^\| `([\w.]+)`[^|]*\| `([\w.]+)` \|$", text, re.MULTILINE)
    table = dict(rows)
    wanted = {module: sorted({home for home, _ in MOVED_NAMES[module].values()})[0] for module in MOVED_NAMES} | {
        f"{module}.{old}": f"{home}.{new}"
        for module, names in DEPRECATED_NAMES.items()
        for old, (home, new) in names.items()
        if new != old
    }
    assert table == wanted


def test_new_homes_and_look_alikes_are_not_uses(tmp_path: Path) -> None:
    source = """\
from harness.authoring.scenarios import mistake, solve
from harness.authoring import scenarios
from harness.kit import s3

recorder = object()
print(scenarios.mistake, recorder.Rule, s3.BUCKET)
"""
    assert found(tmp_path, source) == []


def test_a_file_that_does_not_parse_is_left_to_the_commands_that_say_so(tmp_path: Path) -> None:
    assert found(tmp_path, "from harness.recorder import (\n") == []


def planted_lab(tmp_path: Path) -> Path:
    """Last release's lab, with a moved name in an evaluation module and one used only inside a function body."""
    lab = tmp_path / "lab"
    shutil.copytree(LABS / "last_release", lab)
    module = lab / "evaluation" / "boto3" / "01_01.py"
    module.write_text(
        module.read_text().replace(
            "from harness.kit.step import Step\n",
            "from harness.kit.step import Step\nfrom harness.recorder import RULES\n",
        )
    )
    scenario = lab / "scenarios" / "01_02.py"
    text = scenario.read_text().replace("import json\n", "import json\n\nfrom harness import recorder\n", 1)
    scenario.write_text(
        text.replace(
            "def _policy(aws, bucket, action):\n", "def _policy(aws, bucket, action):\n    assert recorder.Rule\n", 1
        )
    )
    return lab


def test_the_lab_s_three_folders_are_read(tmp_path: Path) -> None:
    lab = planted_lab(tmp_path)
    uses = {(use.path.relative_to(lab).as_posix(), use.line, use.message) for use in lab_deprecated_uses(lab)}
    assert ("evaluation/boto3/01_01.py", 5, moved_warning("harness.recorder", "RULES")) in uses
    assert ("scenarios/01_02.py", 5, MODULE) in uses
    assert ("scenarios/01_02.py", 11, moved_warning("harness.recorder", "Rule")) in uses
    assert len(uses) == 11  # and the 8 last release's scenarios import


@pytest.mark.process
@pytest.mark.parametrize("command", ["lint", "check"])
def test_lint_and_check_say_each_use_without_changing_the_exit_code(tmp_path: Path, command: str) -> None:
    planted_lab(tmp_path)
    done = subprocess.run(
        [STEPEVAL, command, "--lab", "lab"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == ""
    said = done.stderr.splitlines()
    assert f"stepeval: lab/evaluation/boto3/01_01.py:5: {moved_warning('harness.recorder', 'RULES')}" in said
    assert f"stepeval: lab/scenarios/01_02.py:11: {moved_warning('harness.recorder', 'Rule')}" in said
    assert len([line for line in said if "is deprecated" in line]) == 11
    assert said[-1].endswith("; 11 deprecated names in use (warnings above)")


@pytest.mark.process
@pytest.mark.moto
def test_stepeval_test_says_each_use_once_and_the_lab_plays(tmp_path: Path) -> None:
    planted_lab(tmp_path)
    done = subprocess.run(
        [STEPEVAL, "test", "--lab", "lab", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    moved = [line for line in done.stderr.splitlines() if "is deprecated" in line]
    assert moved[0] == f"stepeval: lab/evaluation/boto3/01_01.py:5: {moved_warning('harness.recorder', 'RULES')}"
    assert f"stepeval: lab/scenarios/01_02.py:11: {moved_warning('harness.recorder', 'Rule')}" in moved
    assert len(moved) == len(set(moved)) == 11  # the runtime warnings of the scenarios' imports are not said again


@pytest.mark.process
@pytest.mark.moto
def test_stepeval_run_says_the_uses_in_evaluation_files(tmp_path: Path, aws: MotoAccount) -> None:
    planted_lab(tmp_path)
    done = subprocess.run(
        [STEPEVAL, "run", "01.01", "--lab", "lab", "--endpoint-url", aws.endpoint_url],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )
    assert done.returncode == 1 and json.loads(done.stdout)["status"] == "fail", done.stderr  # no bucket yet
    moved = [line for line in done.stderr.splitlines() if "is deprecated" in line]
    assert moved == [f"stepeval: lab/evaluation/boto3/01_01.py:5: {moved_warning('harness.recorder', 'RULES')}"]
