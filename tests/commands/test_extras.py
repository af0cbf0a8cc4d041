"""The `authoring` extra (moto and its server) is the authors' only: the service and the Lambda handler import
without it, and each command that plays on moto says in one line how to get it (exit 2), in a Python where moto,
flask and werkzeug cannot be imported (a meta-path finder refuses them, as if they were not installed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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
