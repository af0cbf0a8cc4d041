"""`stepeval demo` plays both sample labs on moto servers, shows answers, and a refused write."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.conftest import STEPEVAL

# Two labs played in full: 1-2 minutes alone, more on a loaded machine; the hang guard is the subprocess's 300 s.
pytestmark = [pytest.mark.process, pytest.mark.moto, pytest.mark.timeout(300)]


def test_the_demo_plays_the_sample_lab_and_refuses_a_write() -> None:
    done = subprocess.run([STEPEVAL, "demo", "--json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    steps = {r["step"] for r in shown["playthrough"]}
    assert steps == {"01.01", "01.02", "02.01", "02.02", "02.03", "02.04", "03.01", "03.02"}
    assert all(r["ok"] for r in shown["playthrough"])
    kinds = {r["kind"] for r in shown["playthrough"]}
    assert kinds == {"negative", "mistake", "solve"}
    assert shown["refused_write"]["error"]["kind"] == "read_only"
    assert "s3:PutBucketPolicy" in shown["refused_write"]["error"]["detail"]
    assert "untouched: True" in done.stderr
    serverless = shown["serverless_playthrough"]
    assert {r["step"] for r in serverless} == {"01.01", "01.02", "02.01", "02.02", "02.03", "03.01"}
    assert all(r["ok"] for r in serverless)


def test_the_demo_renders_for_people() -> None:
    wide = {**os.environ, "COLUMNS": "240"}  # rich wraps table cells to the terminal's width
    done = subprocess.run([STEPEVAL, "demo"], capture_output=True, text=True, timeout=300, env=wide)
    assert done.returncode == 0, done.stderr
    for text in (
        "untouched account",
        "both_in_one_zone",
        "all as expected",
        "read_only: refused s3:PutBucketPolicy",
        "still the learner's own",
        "A serverless items API",
        "every_dynamodb_action",
    ):
        assert text in done.stdout
