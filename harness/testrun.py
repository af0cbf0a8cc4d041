"""`stepeval test`: play a lab's scenarios on an embedded moto server and say which answered as expected."""

from __future__ import annotations

import json
import time
from pathlib import Path

from rich.console import Console

from harness.emulator import embedded_moto
from harness.lab import Lab, load_lab
from harness.playthrough import ScenarioResult, load_scenarios, play
from harness.pool import WorkerPool
from harness.render import results_table
from harness.runner import Runner

WORKERS = 2


def selector(lab: Lab, pattern: str | None):
    """Steps whose key, or one of whose scenario names, contains `pattern` (case-insensitive)."""
    if not pattern:
        return None
    needle = pattern.lower()
    names = {key: [step.solve.name, *(m.name for m in step.mistakes)] for key, step in load_scenarios(lab).items()}
    return lambda key: needle in key or any(needle in name.lower() for name in names.get(key, []))


def run_tests(lab_dir: Path, *, pattern: str | None = None, as_json: bool = False) -> int:
    """Play, show a live progress line, then the table; 0 when every scenario answered as expected, else 1."""
    lab = load_lab(lab_dir)
    select = selector(lab, pattern)
    console = Console(stderr=as_json)
    started = time.perf_counter()
    with embedded_moto() as sandbox, WorkerPool(WORKERS) as pool:
        pool.start()
        played: list[ScenarioResult] = []
        with console.status("starting") as status:

            def progress(result: ScenarioResult) -> None:
                played.append(result)
                unexpected = sum(not r.ok for r in played)
                status.update(f"{len(played)} played, {unexpected} unexpected: {result.step} {result.scenario}")

            results = play(lab, Runner(lab, pool), sandbox.endpoint_url, sandbox, select=select, on_result=progress)
    elapsed = time.perf_counter() - started
    unexpected = [r for r in results if not r.ok]
    if as_json:
        print(json.dumps([_plain(r) for r in results], indent=2))
    else:
        console.print(results_table(results))
    verdict = "[green]all as expected[/]" if not unexpected else f"[red]{len(unexpected)} not as expected[/]"
    console.print(f"{len(results)} scenarios in {len({r.step for r in results})} steps, {verdict} ({elapsed:.1f} s)")
    return 1 if unexpected else 0


def _plain(result: ScenarioResult) -> dict:
    return {
        "step": result.step,
        "scenario": result.scenario,
        "kind": result.kind,
        "expected": result.expected,
        "expected_issue": result.expected_issue,
        "got": result.got,
        "issue": result.issue,
        "ok": result.ok,
        "duration_ms": result.duration_ms,
        "detail": result.detail,
    }
