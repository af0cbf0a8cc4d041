"""`stepeval test`: play a lab's scenarios on moto servers of its own and say which answered as expected."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.console import Console

from harness.authoring.lanes import moto_lanes, no_collections
from harness.authoring.playthrough import Lane, ScenarioResult, load_scenarios, play_lanes
from harness.authoring.prestart import Prestarted
from harness.authoring.selection import select
from harness.commands.console import output_console
from harness.commands.lint import lint_solutions
from harness.commands.render import LONG_RUN, results_table
from harness.core.lab import Lab, load_lab


def play_live(
    lab: Lab, lanes: list[Lane], console: Console, select: Callable[[str], bool] | None = None
) -> list[ScenarioResult]:
    """Play with a live progress line on `console` (a terminal), from the setting up on; in a pipe, one line first
    saying what is being set up."""
    played: list[ScenarioResult] = []
    steps = [key for key in lab.steps if select is None or select(key)]
    setting_up = (
        f"setting up: moto's emulator and {len(lanes)} evaluation processes, then {plural(len(steps), 'step')} of "
        f"{lab.spec.title or lab.spec.project} in order"
    )
    if not console.is_terminal:
        console.print(setting_up, soft_wrap=True)
    with console.status(setting_up) as status:

        def progress(result: ScenarioResult) -> None:
            played.append(result)
            unexpected = sum(not r.ok for r in played)
            status.update(
                f"{len(played)} scenarios played, {unexpected} not as expected; now step {result.step} "
                f"({steps.index(result.step) + 1 if result.step in steps else '-'} of {len(steps)}): "
                f"{result.scenario}"
            )

        return play_lanes(lab, lanes, select=select, on_result=progress)


def report(results: list[ScenarioResult], elapsed_s: float, console: Console, *, as_json: bool) -> int:
    """The table (or JSON) and a one-line verdict; 0 when every scenario answered as expected, else 1."""
    unexpected = [r for r in results if not r.ok]
    if as_json:
        print(json.dumps([plain(r) for r in results], indent=2))
    else:
        brief = len(results) > LONG_RUN
        console.print(results_table(results, brief=brief))
        if brief:
            console.print(
                f"[dim]{len(results) - len(unexpected)} scenarios as expected, one line each: -k STEP (e.g. -k "
                f"{results[0].step}) shows their issues, --json everything[/]"
            )
    verdict = "[green]all as expected[/]" if not unexpected else f"[red]{len(unexpected)} not as expected[/]"
    steps = len({r.step for r in results})
    console.print(f"{plural(len(results), 'scenario')} in {plural(steps, 'step')}, {verdict} ({elapsed_s:.1f} s)")
    return 1 if unexpected else 0


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def run_tests(
    lab_dir: Path,
    *,
    pattern: str | None = None,
    as_json: bool = False,
    html: Path | None = None,
    prestarted: Prestarted | None = None,
    region: str | None = None,
) -> int:
    """`stepeval test`: play the lab on moto servers of its own (its accounts in `region`, by default us-east-1),
    then report (and write the HTML report to `html`); 1 also when a reference solution breaks the platform's rules
    (what it imports, its `run`: `stepeval lint`'s findings, printed first).

    `prestarted`: the pool (and moto's root) `stepeval test` started before loading anything
    (harness/authoring/prestart.py).
    """
    lab = load_lab(lab_dir)
    selection = select(pattern, load_scenarios(lab), str(lab_dir))
    console = output_console(stderr=as_json)
    broken_rules = lint_solutions(lab)  # the platform refuses such a solution: played here all the same, then exit 1
    for finding in broken_rules:
        console.print(f"[red]{finding}[/]", soft_wrap=True, highlight=False)
    started = time.perf_counter()
    with ThreadPoolExecutor(1, thread_name_prefix="report") as output:
        with moto_lanes(lab, prestarted=prestarted, region=region) as lanes, no_collections():
            results = play_live(lab, lanes, console, selection.plays if selection else None)
            if selection is not None:
                results = [r for r in results if selection.shows(r)]
            elapsed_s = time.perf_counter() - started
            # written while moto's processes and the pool end (the gateway takes up to half a second to stop)
            written = output.submit(_write, lab, results, elapsed_s, console, as_json, html)
        return written.result() or (1 if broken_rules else 0)


def _write(
    lab: Lab, results: list[ScenarioResult], elapsed_s: float, console: Console, as_json: bool, html: Path | None
) -> int:
    """The HTML report (if asked), then the table or JSON and the verdict; the exit code."""
    if html is not None:
        from harness.commands.report import write_report

        console.print(f"report written to {write_report(lab, html, results, None, elapsed_s)}")
    return report(results, elapsed_s, console, as_json=as_json)


def plain(result: ScenarioResult) -> dict:
    """A result as plain JSON-able data (the answer itself left out)."""
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
