"""`stepeval stats`: per step, what learners did: attempts, pass rate, common issues, durations, errors by kind.

The pass rate is of the verdicts alone (passes and fails): a `pending` answer (AWS was still working on a resource,
nothing was wrong) is never a failure and its issue never among the common issues of failed attempts, and an `error`
(the evaluator or AWS failed) is no verdict on the learner either; both are counted apart."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select

from harness.store.records import RecordStore
from harness.store.schema import evaluations

TOP_ISSUES = 3


@dataclass
class StepStats:
    attempts: int = 0
    passed: int = 0
    failed: int = 0
    pending: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    issues: Counter[str] = field(default_factory=Counter)
    durations: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        ordered = sorted(self.durations)
        judged = self.passed + self.failed
        return {
            "attempts": self.attempts,
            "pass_rate": round(self.passed / judged, 4) if judged else None,
            "passed": self.passed,
            "failed": self.failed,
            "pending": self.pending,
            "errors": dict(self.errors.most_common()),
            "top_issues": [{"issue": issue, "count": n} for issue, n in self.issues.most_common(TOP_ISSUES)],
            "p50_ms": percentile(ordered, 0.50),
            "p95_ms": percentile(ordered, 0.95),
        }


def percentile(ordered: list[float], q: float) -> float | None:
    """Nearest-rank percentile of sorted values (None when there are none)."""
    if not ordered:
        return None
    rank = max(1, min(len(ordered), math.ceil(q * len(ordered))))
    return round(ordered[rank - 1], 2)


def step_stats(store: RecordStore, lab: str | None = None) -> dict[str, dict[str, StepStats]]:
    """lab -> step -> its figures, from the columns alone (recordings are not read)."""
    table = evaluations.c
    query = select(table.lab, table.step, table.status, table.issue, table.error_kind, table.duration_ms)
    if lab is not None:
        query = query.where(table.lab == lab)
    figures: dict[str, dict[str, StepStats]] = {}
    with store.engine.connect() as connection:
        for row in connection.execution_options(yield_per=1000).execute(query):
            stats = figures.setdefault(row.lab, {}).setdefault(row.step, StepStats())
            stats.attempts += 1
            stats.durations.append(row.duration_ms)
            if row.status == "pass":
                stats.passed += 1
            elif row.status == "fail":
                stats.failed += 1
                stats.issues[row.issue or "(no issue given)"] += 1
            elif row.status == "pending":
                stats.pending += 1
            else:
                stats.errors[row.error_kind or "?"] += 1
    return figures


def version_counts(store: RecordStore, lab: str | None = None) -> dict[str, dict[str, int]]:
    """lab -> lab version -> its evaluations, the most recently used version first."""
    table = evaluations.c
    query = select(table.lab, table.lab_version, func.count(), func.max(table.created_at)).group_by(
        table.lab, table.lab_version
    )
    if lab is not None:
        query = query.where(table.lab == lab)
    with store.engine.connect() as connection:
        rows = sorted(connection.execute(query), key=lambda row: -row[3])
    counts: dict[str, dict[str, int]] = {}
    for name, version, count, _ in rows:
        counts.setdefault(name, {})[version] = int(count)
    return counts
