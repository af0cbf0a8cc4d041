"""Replay's feeding and judging: outcomes come as each evaluation is done (a slow one holds up no other), every
record once, steps the lab no longer has skipped; a replayed answer is compared by status, issue and error kind."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from harness.commands import replay as replay_module
from harness.commands.replay import ReplayReport, compare, outcomes
from harness.core.contract import Answer
from harness.core.lab import load_lab
from harness.store.records import StoredRecord
from tests.conftest import LABS


def stored(record_id: str, step: str) -> StoredRecord:
    return StoredRecord(record_id, 0.0, "recorded", step, "v", "cli", None, "pass", None, None, 1.0, "us-east-1",
                        "{}", "{}", 0, b"")  # fmt: skip


def test_a_slow_evaluation_holds_up_no_other(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    first_may_finish = threading.Event()

    def replay_one(runner: Any, record: StoredRecord) -> str:
        if record.id == "slow":
            first_may_finish.wait(timeout=10)  # in record order, the others would wait these 10 s behind it
        return f"replayed {record.id}"

    monkeypatch.setattr(replay_module, "replay_one", replay_one)
    lab = load_lab(LABS / "recorded")
    records = [stored("slow", "01.01"), stored("gone", "09.09"), *(stored(f"r{n}", "01.01") for n in range(5))]
    report = ReplayReport()
    seen = []
    with ThreadPoolExecutor(2) as threads:
        for position, record, outcome in outcomes(threads, 4, None, lab, records, report):  # type: ignore[arg-type]
            assert outcome == f"replayed {record.id}" and records[position] is record
            seen.append(record.id)
            if len(seen) == 5:
                first_may_finish.set()
    assert seen[-1] == "slow" and sorted(seen) == sorted(["slow", *(f"r{n}" for n in range(5))])
    assert report.skipped == [("gone", "step 09.09 is not in the lab any more")]


def test_a_replayed_answer_is_compared_by_status_issue_and_error_kind() -> None:
    recorded = stored("r", "01.01")
    timeout = Answer.failed_to_run("01.01", "timeout", "too slow", 5.0)
    was_error = {"status": "error", "error": {"kind": "timeout", "detail": "earlier"}}
    assert compare(recorded, was_error, timeout, []) is None
    change = compare(recorded, {"status": "pass"}, timeout, [])
    assert change is not None
    assert (change.kind, change.before, change.after) == ("status", "pass", "error (error: timeout)")


@pytest.mark.parametrize(
    ("was", "now", "kind"),
    [("pass", "pending", "regression"), ("pending", "pass", "status"), ("fail", "pending", "status")],
)
def test_pending_is_no_pass(was: str, now: str, kind: str) -> None:
    """A learner who passed and would now hear "not yet" no longer passes: a regression, like pass -> fail."""
    from harness.core.contract import FailureContext

    context = None if now == "pass" else FailureContext(step="01.01", issue="not ready", hint_context="wait")
    answer = Answer(step="01.01", status=now, success=now == "pass", message="m", failure_context=context,
                    retry_after_s=30 if now == "pending" else None)  # fmt: skip
    before = {"status": was, "failure_context": None if was == "pass" else {"issue": "not ready"}}
    change = compare(stored("r", "01.01"), before, answer, [])
    assert change is not None and change.kind == kind
