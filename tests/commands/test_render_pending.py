"""A pending answer as people see it: the rich panel and table, the HTML report: not yet, and when to ask again."""

from __future__ import annotations

from rich.console import Console

from harness.authoring.playthrough import ScenarioResult
from harness.commands.render import answer_panel, results_table
from harness.commands.report import _scenario
from harness.core.contract import Answer, FailureContext, ValidatedEntry

ISSUE = "NAT gateway nat-1 is not ready yet (state pending): AWS is still working on it."


def pending_answer() -> Answer:
    return Answer(
        step="02.04",
        status="pending",
        success=False,
        message=f"2 of 3 checks passed. Not yet: {ISSUE}",
        validated=[ValidatedEntry(name="02_04_nat", type="AWS::EC2::NatGateway", id="nat-1", status="not_found")],
        failure_context=FailureContext(step="02.04", issue=ISSUE, hint_context="check again in about 30 seconds."),
        retry_after_s=30,
    )


def test_the_panel_says_pending_and_when_to_ask_again() -> None:
    console = Console(record=True, width=160, color_system=None)
    console.print(answer_panel(pending_answer()))
    text = console.export_text()
    assert "02.04 PENDING" in text
    assert "retry: AWS is still working on it; ask again in 30 s" in text


def test_the_tables_and_the_report_show_pending_as_its_own_status() -> None:
    result = ScenarioResult(
        "02.04", "too_early", "mistake", "fail", None, "pending", ISSUE, False, 12.0, "m", (), pending_answer()
    )
    console = Console(record=True, width=200, color_system=None)
    console.print(results_table([result]))
    assert "pending" in console.export_text()
    html = _scenario(result)
    assert "<span class='tag pending'>pending</span>" in html
    assert "<b>pending:</b> AWS is still working on it (not a verdict); ask again in 30 s." in html
