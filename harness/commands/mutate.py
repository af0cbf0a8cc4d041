"""`stepeval mutate`: play a lab and the mutants of its solves (harness.authoring.mutation), then report."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console

from harness.authoring.mutation import MutationRun, StepScore, run_mutants
from harness.authoring.playthrough import ScenarioResult
from harness.authoring.prestart import Prestarted
from harness.commands.console import output_console


def plain(run: MutationRun) -> dict[str, Any]:
    """The run as JSON-able data: the lab's score, each step's, every mutant, the scenarios beside."""
    from harness.commands.testrun import plain as plain_scenario

    def score(s: StepScore) -> dict[str, Any]:
        fields = ("killed", "survived", "equivalent", "invalid", "error")
        return {"step": s.step, **{n: getattr(s, n) for n in fields}, "score": s.score}

    return {
        "score": score(run.lab()),
        "steps": [score(s) for s in run.steps()],
        "mutants": [vars(m) for m in run.mutants],
        "unsolved": run.unsolved,
        "stale_marks": run.stale_marks,
        "scenarios": [plain_scenario(r) for r in run.scenarios],
        "elapsed_s": round(run.elapsed_s, 2),
    }


def print_run(run: MutationRun, console: Console, *, as_json: bool, quiet: bool = False) -> None:
    """Every mutant, the scores and the survivors for people (or the JSON), then a one-line verdict (alone when
    `quiet`)."""
    from harness.commands.render import mutant_table, mutation_table

    if as_json:
        print(json.dumps(plain(run), indent=2))
    elif not quiet:
        if run.mutants:
            console.print(mutant_table(run))
        console.print(mutation_table(run))
        for survivor in run.survivors:
            console.print(f"[bold red]survived[/] [bold]{survivor.id}[/]: {survivor.sentence}\n    {survivor.call}")
        for line in run.stale_marks:
            console.print(f"[yellow]stale mark[/] {line}")
        disagreeing = [r for r in run.scenarios if not r.ok]
        for result in disagreeing:
            console.print(f"[yellow]scenario not as expected[/] {result.step} {result.scenario}: {result.detail}")
    lab = run.lab()
    shown = "n/a" if lab.score is None else f"{lab.score:.0%}"
    console.print(
        f"mutation score {shown}: {lab.killed} killed, {lab.survived} survived, {lab.equivalent} equivalent, "
        f"{lab.invalid} invalid, {lab.error} error ({run.elapsed_s:.1f} s)"
        + (f"; solve not passing: {', '.join(run.unsolved)}" if run.unsolved else "")
    )


def run_mutate(
    lab_dir: Path,
    *,
    pattern: str | None = None,
    as_json: bool = False,
    html: Path | None = None,
    quiet: bool = False,
    prestarted: Prestarted | None = None,
    region: str | None = None,
) -> int:
    """`stepeval mutate`: play the lab and its mutants on moto servers of its own (in `region`), then report
    (`quiet`: only the verdict line). With `html`, the lab report is written there too. `prestarted`: as for
    `stepeval test`."""
    from harness.authoring.lanes import moto_lanes, no_collections
    from harness.authoring.playthrough import load_scenarios
    from harness.authoring.selection import select
    from harness.core.lab import load_lab

    lab = load_lab(lab_dir)
    selection = select(pattern, load_scenarios(lab), str(lab_dir), "mutant")
    console = output_console(stderr=as_json)
    with console.status("starting") as status:
        counts: dict[str, int] = {}

        def progress(phase: str, result: ScenarioResult) -> None:
            counts[phase] = counts.get(phase, 0) + 1
            status.update(f"{phase}: {counts[phase]} played: {result.step} {result.scenario}")

        with no_collections():  # as `stepeval test` plays
            run = run_mutants(
                lab,
                partial(moto_lanes, lab, prestarted=prestarted, region=region),
                select=selection.plays if selection else None,
                on_result=progress,
            )
    if selection is not None:
        run.scenarios = [r for r in run.scenarios if selection.shows(r)]
    if html is not None:
        from harness.commands.report import write_report

        console.print(f"report written to {write_report(lab, html, run.scenarios, run, run.elapsed_s)}")
    print_run(run, console, as_json=as_json, quiet=quiet)
    return run.exit_code
