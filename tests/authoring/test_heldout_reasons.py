"""The right reason, measured: each sample lab judges its held-out mistakes (tests/heldout/LAB/NN_NN.py, written
from the lab's spec with decoys in the account) and every issue names the cause the mistake was written for.

Each lab is copied with the held-out mistakes appended to its own scenario files, and played as an author plays
it (`stepeval test -k heldout_`): earlier steps by their solutions or solves, each mistake from a fresh copy.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.process, pytest.mark.moto]

REPO = Path(__file__).resolve().parents[2]
HELD_OUT = REPO / "tests" / "heldout"
LABS = {
    "web-tier": REPO,
    "serverless-api": REPO / "labs" / "serverless-api",
    "containers-api": REPO / "labs" / "containers-api",
}


def _lab_with_held_out(name: str, into: Path) -> Path:
    """A copy of the lab whose scenario files end with its held-out mistakes."""
    lab = into / name
    for part in ("specs", "evaluation", "solution", "scenarios"):
        if (LABS[name] / part).is_dir():
            shutil.copytree(LABS[name] / part, lab / part)
    for held in sorted((HELD_OUT / name).glob("*.py")):
        scenarios = lab / "scenarios" / held.name
        before = scenarios.read_text(encoding="utf-8") if scenarios.exists() else ""
        scenarios.write_text(before + "\n" + held.read_text(encoding="utf-8"), encoding="utf-8")
    return lab


def held_out_results(name: str, into: Path) -> list[dict]:
    """The held-out mistakes' results, as `stepeval test --json` gives them."""
    lab = _lab_with_held_out(name, into)
    played = subprocess.run(
        [str(Path(sys.executable).parent / "stepeval"), "test", "--lab", str(lab), "-k", "heldout_", "--json"],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    results = json.loads(played.stdout or "[]")
    return [r for r in results if r["scenario"].startswith("heldout_")]


@pytest.mark.timeout(900)  # the time its `stepeval test` is given
@pytest.mark.parametrize("name", sorted(LABS))
def test_every_held_out_mistake_names_its_cause(name: str, tmp_path: Path) -> None:
    results = held_out_results(name, tmp_path)
    written = sum(held.read_text(encoding="utf-8").count("@mistake(") for held in (HELD_OUT / name).glob("*.py"))
    assert len(results) == written >= 5
    wrong = [
        f"{r['step']} {r['scenario']}: got {r['got']}: {r['issue']} ({r['detail']})" for r in results if not r["ok"]
    ]
    assert not wrong, "\n".join(wrong)
