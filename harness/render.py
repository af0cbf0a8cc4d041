"""Answers for people: a rich panel per answer (the JSON stays the machine-facing form)."""

from __future__ import annotations

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from harness.contract import Answer

STATUS_STYLE = {"pass": "bold green", "fail": "bold yellow", "error": "bold red"}


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
