"""The store's commands: `stepeval replay`, `stepeval stats`, and recording for `stepeval run --store`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from rich.console import Console
from rich.table import Table

from harness.commands.console import output_console
from harness.commands.replay import ReplayReport, replay
from harness.core.errors import BadInput
from harness.core.lab import load_lab, normalize_step_key
from harness.store.engine import open_engine
from harness.store.records import RecordStore
from harness.store.stats import step_stats, version_counts

EXIT_OK, EXIT_GATE = 0, 1


def parse_since(text: str) -> float:
    """--since: an ISO date or date-time (UTC unless it says otherwise), as Unix seconds."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise BadInput(f"--since {text!r}: not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][+00:00])") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def run_replay(
    lab_dir: str, url: str, *, step: str | None, since: str | None, as_json: bool, workers: int | None
) -> int:
    """Replay, print the report; 1 on any pass -> fail or unjudgeable evaluation."""
    lab = load_lab(lab_dir)
    step_key = normalize_step_key(step) if step else None
    if step_key is not None:
        lab.step(step_key)
    moment = parse_since(since) if since else None
    engine = open_engine(url)
    try:
        report = replay(lab, RecordStore(engine), step=step_key, since=moment, workers=workers)
    finally:
        engine.dispose()
    if as_json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print_replay(report, output_console())
    return EXIT_GATE if report.failed else EXIT_OK


def print_replay(report: ReplayReport, console: Console) -> None:
    table = Table(title="replay: verdicts that changed, per step")
    for name in (
        "step",
        "replayed",
        "unchanged",
        "pass -> fail",
        "fail -> pass",
        "other status",
        "issue",
        "unjudgeable",
    ):
        table.add_column(name, justify="left" if name == "step" else "right")
    for key, t in sorted(report.steps.items()):
        table.add_row(
            key, *map(str, (t.replayed, t.unchanged, t.regression, t.fixed, t.status, t.issue, t.unjudgeable))
        )
    console.print(table)
    for change in report.changes:
        console.print(
            f"{change.step} {change.record_id} (lab version {change.lab_version}): {change.kind}: "
            f"{change.before} -> {change.after}",
            markup=False,
        )
        for request in change.missing:
            console.print(f"    not in the recording: {request}", markup=False)
    for record_id, why in report.corrupt:
        console.print(f"corrupt recording {record_id} (skipped): {why}", markup=False)
    for record_id, why in report.skipped:
        console.print(f"skipped {record_id}: {why}", markup=False)
    console.print(
        "FAILED: a learner who passed would now fail, or an evaluation cannot be judged" if report.failed else "ok"
    )


def run_stats(url: str, *, lab_dir: str | None, as_json: bool) -> int:
    lab = load_lab(lab_dir).spec.project if lab_dir else None
    engine = open_engine(url)
    try:
        store = RecordStore(engine)
        figures = step_stats(store, lab)
        versions = version_counts(store, lab)
        size = store.bytes_per_evaluation(lab)
        count = store.count(lab)
    finally:
        engine.dispose()
    plain: dict[str, Any] = {
        "evaluations": count,
        "bytes_per_evaluation": round(size, 1),
        "labs": {
            name: {key: s.as_dict() for key, s in sorted(steps.items())} for name, steps in sorted(figures.items())
        },
        "versions": versions,
    }
    if as_json:
        print(json.dumps(plain, indent=2))
        return EXIT_OK
    console = output_console()
    for name, steps in plain["labs"].items():
        table = Table(title=f"{name}: per step")
        for column in ("step", "attempts", "pass rate", "pending", "top issues", "p50 ms", "p95 ms", "errors"):
            table.add_column(column)
        for key, s in steps.items():
            issues = "; ".join(f"{i['issue']} ({i['count']})" for i in s["top_issues"]) or "-"
            errors = ", ".join(f"{k} {n}" for k, n in s["errors"].items()) or "-"
            rate = f"{100 * s['pass_rate']:.0f}%" if s["pass_rate"] is not None else "-"
            pending = str(s["pending"])
            table.add_row(key, str(s["attempts"]), rate, pending, issues, str(s["p50_ms"]), str(s["p95_ms"]), errors)
        console.print(table)
        held = ", ".join(f"{version} ({n})" for version, n in versions.get(name, {}).items())
        console.print(f"{name}: evaluations by lab version, newest first: {held}", markup=False)
    console.print(f"{count} evaluations, {size / 1024:.1f} KiB each on average (context, answer, compressed recording)")
    return EXIT_OK
