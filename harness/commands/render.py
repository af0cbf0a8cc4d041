"""Answers and playthroughs for people: rich panels and tables (the JSON stays the machine-facing form)."""

from __future__ import annotations

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from harness.authoring.mutation import MutationRun
from harness.authoring.playthrough import ScenarioResult
from harness.core.contract import Answer

STATUS_STYLE = {"pass": "bold green", "fail": "bold yellow", "pending": "bold cyan", "error": "bold red"}


def answer_panel(answer: Answer, title: str = "") -> Panel:
    """One answer: status, message, what was validated, and the failure or error behind it."""
    parts: list = [Text(answer.message)]
    if answer.validated:
        table = Table(box=None, pad_edge=False, show_header=True, header_style="dim")
        for column in ("handle", "type", "id", "status"):
            table.add_column(column)
        for entry in answer.validated:
            style = "green" if entry.status == "found" else "yellow"
            table.add_row(entry.name, entry.type, entry.id or "-", Text(entry.status, style=style))
        parts.append(table)
    if answer.failure_context:
        parts.append(Text.assemble(("issue: ", "bold"), answer.failure_context.issue))
        parts.append(Text.assemble(("hint:  ", "bold"), answer.failure_context.hint_context))
    if answer.retry_after_s is not None:
        parts.append(
            Text.assemble(("retry: ", "bold"), f"AWS is still working on it; ask again in {answer.retry_after_s} s")
        )
    if answer.error:
        parts.append(Text.assemble(("error: ", "bold red"), f"{answer.error.kind}: ", answer.error.detail))
    if answer.resolved:
        resolved = ", ".join(f"{h.name}={h.id}" for h in answer.resolved)
        parts.append(Text.assemble(("resolved: ", "bold"), resolved))
    heading = Text.assemble((f" {answer.step} ", "bold"), (answer.status.upper(), STATUS_STYLE[answer.status]))
    if title:
        heading.append(f"  {title}")
    return Panel(
        Group(*parts),
        title=heading,
        title_align="left",
        subtitle=f"{answer.duration_ms:.0f} ms",
        subtitle_align="right",
        border_style=STATUS_STYLE[answer.status].split()[-1],
    )


def results_table(results: list[ScenarioResult]) -> Table:
    """Step x scenario: what was expected, what the evaluation answered, the issue it gave, and how long it took."""
    table = Table(show_lines=False, header_style="bold")
    for column in ("step", "scenario", "expected", "got", "", "issue", "ms"):
        table.add_column(column, overflow="fold", justify="right" if column == "ms" else "left")
    previous = None
    for result in results:
        expected = result.expected + (f" ~ {result.expected_issue}" if result.expected_issue else "")
        got = Text(result.got, style=STATUS_STYLE.get(result.got, "bold magenta"))
        mark = Text("ok", style="green") if result.ok else Text("NOT OK", style="bold red")
        issue = result.issue or ("" if result.ok else result.detail)
        table.add_row(
            result.step if result.step != previous else "",
            f"{result.scenario} ({result.kind})",
            expected,
            got,
            mark,
            issue,
            f"{result.duration_ms:.0f}",
        )
        previous = result.step
    return table


OUTCOME_STYLE = {"killed": "green", "survived": "bold red", "equivalent": "cyan", "invalid": "dim", "error": "red"}


def mutation_table(run: MutationRun) -> Table:
    """Step by step: mutants killed, survived, marked equivalent, invalid, and the step's mutation score."""
    table = Table(header_style="bold")
    for column in ("step", "killed", "survived", "equivalent", "invalid", "error", "score"):
        table.add_column(column, justify="left" if column == "step" else "right")
    steps = run.steps()
    for score in [*steps, run.lab()]:
        shown = "n/a" if score.score is None else f"{score.score:.0%}"
        table.add_row(
            score.step,
            str(score.killed),
            Text(str(score.survived), style=OUTCOME_STYLE["survived"] if score.survived else ""),
            str(score.equivalent),
            str(score.invalid),
            Text(str(score.error), style=OUTCOME_STYLE["error"] if score.error else ""),
            shown,
            end_section=bool(steps) and score is steps[-1],
        )
    return table
