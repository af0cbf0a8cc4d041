"""What a scenario of a playthrough expected, what its evaluation answered, and whether that is right."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Literal

from harness.core.contract import Answer, Event

UNTOUCHED = "untouched account"

Kind = Literal["negative", "mistake", "solve"]
Got = Literal["pass", "fail", "pending", "error", "broken"]


@dataclass(frozen=True)
class ScenarioResult:
    """What one scenario expected, what the evaluation answered, and whether that is right (`ok`).

    `got` is the answer's status (pass, fail, pending, error), or `broken` when the scenario (or the solve of an
    earlier step) raised: then `detail` holds the traceback and there is no answer. `events` are those the evaluator
    was given.
    """

    step: str
    scenario: str
    kind: Kind
    expected: Literal["pass", "fail"]
    expected_issue: str | None
    got: Got
    issue: str | None
    ok: bool
    duration_ms: float
    detail: str
    events: tuple[Event, ...] = ()
    answer: Answer | None = None


def judged(
    key: str,
    name: str,
    kind: Kind,
    expected: Literal["pass", "fail"],
    pattern: str | None,
    answer: Answer,
    events: tuple[Event, ...],
    started: float,
) -> ScenarioResult:
    """The result of a scenario of step `key` started at `started` (`time.perf_counter`), given `answer`: ok when
    it has the status expected and, for a failure, an issue matching `pattern`."""
    issue = answer.failure_context.issue if answer.failure_context else None
    if answer.error is not None:
        ok, detail = False, f"error {answer.error.kind}: {answer.error.detail}"
    elif answer.status != expected:
        ok, detail = False, answer.message
    elif expected == "fail" and pattern and not re.search(pattern, issue or ""):
        ok, detail = False, f"the issue does not match {pattern!r}"
    else:
        ok, detail = True, answer.message
    return ScenarioResult(
        key, name, kind, expected, pattern, answer.status, issue, ok, elapsed_ms(started), detail, events, answer
    )


def elapsed_ms(started: float) -> float:
    """Milliseconds since `started` (`time.perf_counter`), to a tenth."""
    return round((time.perf_counter() - started) * 1000, 1)
