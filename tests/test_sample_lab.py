"""The sample lab (the repo root) played through its scenarios: every solve passes, every mistake answers right."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.account import Credentials, SandboxSpec
from harness.lab import load_lab
from harness.playthrough import ScenarioResult, play
from harness.pool import WorkerPool
from harness.runner import Runner
from tests.conftest import REGION

REPO_ROOT = Path(__file__).resolve().parent.parent
STEPS = list(load_lab(REPO_ROOT).steps)


@pytest.fixture(scope="module")
def results(moto_server: str, pool: WorkerPool) -> list[ScenarioResult]:
    """The whole lab played once (play resets the server itself); each test looks at one step."""
    lab = load_lab(REPO_ROOT)
    sandbox = SandboxSpec(Credentials("testing", "testing"), REGION, moto_server)
    return play(lab, Runner(lab, pool), moto_server, sandbox)


def describe(result: ScenarioResult) -> str:
    """One readable line (and the detail, indented) for a scenario that did not answer as expected."""
    expected = result.expected + (f" ~ /{result.expected_issue}/" if result.expected_issue else "")
    got = result.got + (f": {result.issue!r}" if result.issue else "")
    detail = "\n      ".join(result.detail.splitlines())
    return f"  {result.step} {result.scenario} ({result.kind}): expected {expected}, got {got}\n      {detail}"


@pytest.mark.parametrize("step", STEPS)
def test_every_scenario_of_the_step_answers_as_expected(step: str, results: list[ScenarioResult]) -> None:
    played = [r for r in results if r.step == step]
    assert any(r.kind == "solve" for r in played)
    assert sum(r.kind == "mistake" for r in played) >= 3
    wrong = [r for r in played if not r.ok]
    if wrong:
        pytest.fail("scenarios that did not answer as expected:\n" + "\n".join(map(describe, wrong)), pytrace=False)
