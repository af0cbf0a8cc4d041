"""The pytest plugin collects a lab's scenarios as items: ordinary pytest output, -k and -x."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import LABS

pytestmark = [pytest.mark.process, pytest.mark.moto]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the playthrough engine's own lab, whose evaluators and scenarios are partly wrong on purpose."""
    root = tmp_path_factory.mktemp("lab") / "scenario_checks"
    shutil.copytree(LABS / "scenario_checks", root)
    return root


def pytest_in(lab: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in the lab, as its author runs it, writing bytecode: pytest rewrites every module of an autoloaded
    plugin's distribution (harness, hypothesis, anyio), and with PYTHONDONTWRITEBYTECODE set (as under CI) each run
    compiled them all again, ~0.9 s of CPU; written by the first run, read by the others."""
    command = [sys.executable, "-m", "pytest", "scenarios", "-p", "no:cacheprovider", "-q", *args]
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return subprocess.run(command, cwd=lab, capture_output=True, text=True, timeout=300, env=env)


def test_every_scenario_is_an_item_and_the_wrong_ones_fail(lab: Path) -> None:
    done = pytest_in(lab)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("5 failed, 14 passed")
    for node in (
        "scenarios/01_02.py::untouched account",  # an evaluator that passes the untouched account
        "scenarios/01_02.py::no_policy",  # a mistake that passes
        "scenarios/02_03.py::attached_gateway",  # a solve that raises: broken, not an evaluator verdict
    ):
        assert f"FAILED {node}" in done.stdout
    assert "expected pass, got broken" in done.stdout
    assert "RuntimeError: this solve was never finished" in done.stdout


def test_k_selects_and_plays_only_what_it_needs(lab: Path) -> None:
    done = pytest_in(lab, "-k", "02_02")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "passed" in done.stdout.splitlines()[-1] and "failed" not in done.stdout.splitlines()[-1]


def test_x_stops_at_the_first_failure(lab: Path) -> None:
    done = pytest_in(lab, "-x")
    assert done.returncode == 1
    assert "1 failed" in done.stdout.splitlines()[-1]


@pytest.mark.parametrize(
    ("pattern", "count"),
    [("01.02", 3), ("01_02", 3), ("no_policy", 1), ("polic", 2), ("untouched", 5)],
)
def test_k_selects_as_stepeval_test_does(lab: Path, pattern: str, count: int) -> None:
    done = pytest_in(lab, "--collect-only", "-k", pattern)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith(f"{count}/19 tests collected"), done.stdout


def test_k_that_selects_nothing_exits_2_naming_it(lab: Path) -> None:
    done = pytest_in(lab, "-k", "01_09")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "-k '01_09' selects no scenario" in done.stdout + done.stderr


def test_a_lab_repository_with_no_pytest_configuration_gets_no_asyncio_warning(lab: Path) -> None:
    assert not any((lab / name).exists() for name in ("pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"))
    done = pytest_in(lab, "--collect-only", "-W", "error::pytest.PytestDeprecationWarning")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "asyncio_default_fixture_loop_scope" not in done.stdout + done.stderr
