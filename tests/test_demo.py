"""`stepeval demo` plays the seed examples on embedded moto and says what it saw."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

STEPEVAL = str(Path(sys.executable).parent / "stepeval")


def test_the_demo_plays_through_with_the_expected_answers() -> None:
    done = subprocess.run([STEPEVAL, "demo", "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(a["step"], a["status"]) for a in answers] == [
        ("01.01", "fail"),
        ("01.01", "pass"),
        ("01.02", "fail"),
        ("01.02", "pass"),
        ("01.01", "error"),
    ]
    assert answers[-1]["error"]["kind"] == "read_only"
    assert "still the learner's own" in done.stderr


def test_the_demo_renders_panels_for_people() -> None:
    done = subprocess.run([STEPEVAL, "demo"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for text in ("PASS", "FAIL", "ERROR", "read_only: refused s3:PutBucketPolicy", "resolved: 01_01_bucket="):
        assert text in done.stdout
