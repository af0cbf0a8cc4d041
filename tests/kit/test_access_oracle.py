"""harness.kit.access against an independent evaluator, @cloud-copilot/iam-simulate (npm; tests/kit/policy_oracle):
10,000+ seeded requests over realistic resource policies, every decision the same, or the difference listed in
KNOWN with why AWS agrees with us."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness.kit.access import Request, evaluate
from tests.fixtures.needs import need
from tests.kit.policy_cases import cases

pytestmark = pytest.mark.process

ORACLE = Path(__file__).parent / "policy_oracle"
CASES = 12_000
SEED = 30


def oracle(batch: list[dict[str, Any]]) -> list[dict[str, str]]:
    node, modules = shutil.which("node"), ORACLE / "node_modules" / "@cloud-copilot" / "iam-simulate"
    need("node", node is not None, "install Node.js >= 20 (the differential test of the policy engine runs it)")
    need("the oracle's npm packages", modules.is_dir(), "`make test` installs them (npm ci in tests/kit/policy_oracle)")
    done = subprocess.run(
        [node, str(ORACLE / "oracle.mjs")],
        input=json.dumps(batch),
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return json.loads(done.stdout)


OURS = {"allowed": "Allowed", "denied": "ExplicitlyDenied", "not allowed": "ImplicitlyDenied"}


def literal_variables(case: dict[str, Any]) -> bool:
    """A policy without `"Version": "2012-10-17"` that spells `${...}`: IAM reads it literally ("If you don't include
    the Version element ... variables such as ${aws:username} aren't recognized as variables and are instead treated
    as literal strings in the policy", IAM User Guide, reference_policies_variables.html#policy-vars-infotouse);
    iam-simulate substitutes them in any version."""
    return case["policy"].get("Version") != "2012-10-17" and "${" in json.dumps(case["policy"])


KNOWN = {literal_variables: "variables in a policy older than 2012-10-17 are literal text"}
"""The disagreements left, each kind with why AWS agrees with us: a predicate on the case and the reason."""


@pytest.mark.timeout(600)  # the time its oracle is given
def test_the_engine_agrees_with_iam_simulate() -> None:
    batch = cases(CASES, SEED)
    answers = oracle(batch)
    errors = [(c, a["error"]) for c, a in zip(batch, answers, strict=True) if "error" in a]
    assert len(errors) < CASES // 100, errors[:3]
    disagreements = []
    judged = 0
    for case, answer in zip(batch, answers, strict=True):
        if "error" in answer:
            continue
        judged += 1
        request = Request(case["principal"], case["action"], case["resource"], case["context"])
        ours = OURS[evaluate(case["policy"], request).outcome]
        if ours != answer["result"] and not any(known(case) for known in KNOWN):
            disagreements.append((ours, answer["result"], case))
    assert judged >= 10_000
    assert not disagreements, f"{len(disagreements)} disagreements, e.g. {json.dumps(disagreements[:3], indent=1)}"


def test_without_node_the_test_skips_outside_ci_and_fails_under_it(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no node on it
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"node is missing: install Node\.js >= 20"):
        oracle([])
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="under CI a missing node is an error"):
        oracle([])
