"""The `authoring` extra (moto and its server) is the authors' only: the service and the Lambda handler import
without it, and each command that plays on moto says in one line how to get it (exit 2), in a Python where moto,
flask and werkzeug cannot be imported (a meta-path finder refuses them, as if they were not installed)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import distribution
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from harness.authoring.extra import INSTALL, MODULES

pytestmark = pytest.mark.process
REPO = Path(__file__).resolve().parents[2]
BLOCKED = f"""
import importlib.abc, sys
class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {MODULES!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, NotInstalled())
"""


CARRIED_BY_MOTO = {"moto", "flask", "werkzeug", "docker", "aws-xray-sdk", "responses"}
"""What moto's server brings that the service never imports (the service image and the Lambda image install
stepeval without extras, as `pip install .` in Dockerfile.service and Dockerfile)."""


def installs(name: str, extras: frozenset[str] = frozenset()) -> set[str]:
    """The distributions `pip install name[extras]` brings here (`name` included), read from the installed ones'
    metadata: each requirement whose marker holds on this platform for the extras asked."""
    found: set[str] = set()
    seen: set[tuple[str, frozenset[str]]] = set()
    todo = [(canonicalize_name(name), extras)]
    while todo:
        project, wanted = todo.pop()
        if (project, wanted) in seen:
            continue
        seen.add((project, wanted))
        found.add(project)
        for line in distribution(project).requires or []:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is None or any(marker.evaluate({"extra": extra}) for extra in wanted | {""}):
                todo.append((canonicalize_name(requirement.name), frozenset(requirement.extras)))
    return found


def test_stepeval_without_extras_brings_no_moto() -> None:
    """The images' `pip install .`: none of moto's server comes with it; with the `authoring` extra, all of it does
    (else the walk proves nothing)."""
    assert installs("stepeval") & CARRIED_BY_MOTO == set()
    assert installs("stepeval", frozenset({"authoring"})) >= {"moto", "flask", "werkzeug"}


def python(code: str) -> subprocess.CompletedProcess[str]:
    """`code` run by this venv's Python with the `authoring` extra's modules refused."""
    return subprocess.run(
        [sys.executable, "-c", BLOCKED + code], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_service_and_the_lambda_handler_import_without_moto() -> None:
    ran = python(
        "import harness.service.app, harness.service.serve, harness.service.lambda_handler\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {MODULES!r})\n"
        "print('loaded:', loaded)\n"
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "loaded: []"


def test_the_refusing_finder_does_refuse_moto() -> None:  # else the test above proves nothing
    ran = python("import moto")
    assert ran.returncode != 0
    assert "No module named 'moto'" in ran.stderr


@pytest.mark.parametrize(
    "argv",
    [["demo"], ["test", "--lab", "."], ["mutate", "--lab", "."], ["report", "--lab", ".", "-o", "report.html"]],
    ids=["demo", "test", "mutate", "report"],
)
def test_a_command_that_plays_on_moto_names_the_extra_in_one_line(argv: list[str]) -> None:
    ran = python(f"from harness.commands.cli import main\nsys.exit(main({argv!r}))")
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr.count("\n") == 1, ran.stderr
    assert ran.stderr.startswith(f"stepeval: {argv[0]} plays the lab on moto, which is not installed here (moto)")
    assert ran.stderr.rstrip().endswith(INSTALL)
    assert ran.stdout == ""


def test_the_pytest_plugin_names_the_extra_for_a_lab_s_scenarios() -> None:
    ran = python("import pytest\nsys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'scenarios/01_01.py']))")
    assert ran.returncode == 2, ran.stdout[-2000:]
    assert f"the scenarios play on moto, which is not installed here (moto): {INSTALL}" in ran.stdout
