"""`stepeval stats`: per step attempts, pass rate, common issues, p50/p95, errors by kind, from a real store."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from harness.core.contract import Answer, ContextInput, FailureContext
from harness.store.engine import open_engine
from harness.store.records import NewRecord, RecordStore
from harness.store.stats import percentile
from tests.conftest import LABS, REGION, STEPEVAL

pytestmark = pytest.mark.process


def answer(status: str, duration: float, issue: str | None = None, kind: str | None = None) -> Answer:
    if status == "error":
        return Answer.failed_to_run("01.01", kind or "aws", "detail", duration)
    context = FailureContext(step="01.01", issue=issue, hint_context="h") if issue else None
    retry = 30 if status == "pending" else None
    return Answer(step="01.01", status=status, success=status == "pass", message="m", failure_context=context,
                  retry_after_s=retry, duration_ms=duration)  # fmt: skip


def test_stats_per_step(store_url: str) -> None:
    store = RecordStore(open_engine(store_url))
    answers = (
        [answer("pass", float(d)) for d in range(10, 70, 10)]  # 6 passes, 10..60 ms
        + [answer("fail", 100.0, "no such bucket")] * 3
        + [answer("fail", 100.0, "bucket is public")]
        + [answer("error", 5.0, kind="aws"), answer("error", 5.0, kind="timeout")]
        + [answer("pending", 7.0, "NAT gateway nat-1 is not ready yet (state pending): AWS is still working on it.")]
    )
    try:
        for a in answers:
            store.add(NewRecord("recorded", "01.01", "v1", "service", None, REGION, ContextInput(), a, []))
        store.add(NewRecord("another", "01.01", "v1", "service", None, REGION, ContextInput(), answers[0], []))
    finally:
        store.engine.dispose()
    done = subprocess.run(
        [STEPEVAL, "stats", "--store", store_url, "--lab", str(LABS / "recorded"), "--json"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    step = figures["labs"]["recorded"]["01.01"]
    assert list(figures["labs"]) == ["recorded"] and figures["evaluations"] == 13
    assert step["attempts"] == 13 and step["pass_rate"] == round(6 / 10, 4) and step["failed"] == 4
    assert step["pending"] == 1  # not yet: never a learner failure, not in the pass rate, never among the issues
    # errors (the evaluator's or AWS's) are no verdict on the learner: the pass rate is 6 of the 10 verdicts
    assert step["top_issues"] == [{"issue": "no such bucket", "count": 3}, {"issue": "bucket is public", "count": 1}]
    assert step["errors"] == {"aws": 1, "timeout": 1}
    assert step["p50_ms"] == 40.0 and step["p95_ms"] == 100.0  # of 5 5 7 10 20 30 40 | 50 60 100 100 100 100
    assert figures["bytes_per_evaluation"] > 0
    wide = {**os.environ, "COLUMNS": "200"}
    table = subprocess.run([STEPEVAL, "stats", "--store", store_url], capture_output=True, text=True, env=wide)
    assert table.returncode == 0 and "no such bucket (3)" in table.stdout and "60%" in table.stdout
    assert "pending" in table.stdout and "not ready yet" not in table.stdout


def test_stats_count_each_lab_version_newest_first(store_url: str) -> None:
    store = RecordStore(open_engine(store_url))
    try:
        for version, at in (("v1", 100.0), ("v1", 200.0), ("v2", 300.0), ("v1", 250.0)):
            record = NewRecord(
                "recorded", "01.01", version, "service", None, REGION, ContextInput(), answer("pass", 1.0), []
            )
            store.add(record, now=at)
        store.add(NewRecord("another", "01.01", "w1", "service", None, REGION, ContextInput(), answer("pass", 1.0), []))
    finally:
        store.engine.dispose()
    done = subprocess.run([STEPEVAL, "stats", "--store", store_url, "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    versions = json.loads(done.stdout)["versions"]
    assert list(versions["recorded"].items()) == [("v2", 1), ("v1", 3)] and versions["another"] == {"w1": 1}
    wide = {**os.environ, "COLUMNS": "200"}
    table = subprocess.run([STEPEVAL, "stats", "--store", store_url], capture_output=True, text=True, env=wide)
    assert "recorded: evaluations by lab version, newest first: v2 (1), v1 (3)" in table.stdout


def test_percentile_is_nearest_rank() -> None:
    assert percentile([], 0.5) is None
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 0.95) == 95.0
