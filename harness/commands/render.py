"""Answers and playthroughs for people: rich panels and tables (the JSON stays the machine-facing form)."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from harness.authoring.mutation import MutationRun
from harness.authoring.playthrough import ScenarioResult
from harness.commands.expectations import expected_in_words
from harness.core.contract import Answer

STATUS_STYLE = {"pass": "bold green", "fail": "bold yellow", "pending": "bold cyan", "error": "bold red"}


def answer_panel(answer: Answer, title: str = "") -> Panel:
    """One answer: status, message, what was validated, and the failure or error behind it."""
    parts: list = [Text(answer.message)]
    if answer.validated:
        parts.append(ValidatedOutputs(answer))
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


class ValidatedOutputs:
    """The outputs an answer names: handle, type, id and whether it is the one the step asks for, fitted to the
    width it is given (narrower than WIDE: no type column, the handle names it). An output with an id that is not
    `found` is a near miss (that resource, not as the step asks): it says so, never "not_found" beside an id that
    exists. An id folds only when longer than its column (an ARN's tail is what tells two apart)."""

    WIDE = 110

    def __init__(self, answer: Answer) -> None:
        self.answer = answer

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        wide = options.max_width >= self.WIDE
        table = Table(box=None, pad_edge=False, show_header=True, header_style="dim")
        table.add_column("handle", no_wrap=True)
        if wide:
            table.add_column("type", no_wrap=True)
        table.add_column("id", overflow="fold")
        table.add_column("status", no_wrap=True)
        for entry in self.answer.validated:
            if entry.status == "found":
                status = Text("found", style="green")
            else:
                status = Text("not as asked" if entry.id else "not found", style="yellow")
            type_cell = [entry.type] if wide else []
            table.add_row(entry.name, *type_cell, entry.id or "-", status)
        yield table


LONG_RUN = 20
"""Beyond this many scenarios a listing is brief: a scenario as expected takes one line, without its issue."""
KIND_SHOWN = {"negative": "", "mistake": "mistake", "solve": "solve"}


def kind_shown(result: ScenarioResult) -> str:
    """What a scenario is, in its listing: a `@mistake(expect="pass")` is a variant of the solve (another right way,
    the events in another order), not a mistake that passes."""
    return "variant" if result.kind == "mistake" and result.expected == "pass" else KIND_SHOWN[result.kind]


def results_table(results: list[ScenarioResult], *, brief: bool | None = None) -> Table:
    """Step by step, one row per scenario: ok or NOT OK, its name, what it expected in words, the time; then the
    issue the evaluation gave (and why it is not as expected). A grid with no header, each cell wrapped at words
    in whatever width the console has (a terminal's, 80 columns in a pipe). `brief` (by default: a long run):
    scenarios as expected on one line each, without their issue."""
    brief = len(results) > LONG_RUN if brief is None else brief
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)  # step
    table.add_column(no_wrap=True)  # ok / NOT OK
    table.add_column(overflow="fold")  # the scenario (a word longer than the line folds; others wrap)
    table.add_column(no_wrap=True, justify="right")  # ms
    previous = None
    for result in results:
        table.add_row(
            result.step if result.step != previous else "",
            Text("ok", style="green") if result.ok else Text("NOT OK", style="bold red"),
            scenario_text(result, issue=not (brief and result.ok)),
            f"{result.duration_ms:.0f} ms",
        )
        previous = result.step
    return table


def scenario_text(result: ScenarioResult, *, issue: bool) -> Text:
    """`name (kind): what it expected in words`, what it got when not that, and (if `issue`) the issue below."""
    text = Text.assemble((result.scenario, "bold"))
    if kind_shown(result):
        text.append(f" ({kind_shown(result)})", style="dim")
    text.append(f": {expected_in_words(result)}")
    if not result.ok:
        text.append(", got ")
        text.append(result.got, style=STATUS_STYLE.get(result.got, "bold magenta"))
    lines = [result.issue] if issue and result.issue else []
    if not result.ok and result.detail and result.detail != result.issue:
        lines.append(result.detail)
    for line in lines:
        text.append("\n")
        text.append(line.strip(), style="" if result.ok else "red")
    return text


OUTCOME_STYLE = {"killed": "green", "survived": "bold red", "equivalent": "cyan", "invalid": "dim", "error": "red"}


def mutant_table(run: MutationRun) -> Table:
    """Every mutant: its step, what it changed, what the evaluator made of it and why (the issue it failed with,
    or the reason it is invalid or equivalent)."""
    table = Table(header_style="bold")
    for column in ("step", "mutant", "outcome", "why"):
        table.add_column(column, overflow="fold")
    for mutant in run.mutants:
        why = mutant.issue if mutant.outcome == "killed" else mutant.reason or mutant.issue or ""
        style = OUTCOME_STYLE.get(mutant.outcome, "")
        table.add_row(mutant.step, mutant.id, Text(mutant.outcome, style=style), why or "")
    return table


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
