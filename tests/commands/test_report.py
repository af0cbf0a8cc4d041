"""The lab report: self-contained HTML, checked in a real headless chromium (Debian's, driven by Playwright)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from harness.commands.report import render
from harness.core.lab import load_lab
from tests.conftest import LABS, STEPEVAL

pytestmark = [pytest.mark.process, pytest.mark.moto]

LAB = LABS / "scenario_checks"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """`stepeval test --html` on a lab whose scenarios are partly wrong on purpose (a real run, its output piped):
    the report's path and what it printed."""
    path = tmp_path_factory.mktemp("report") / "report.html"
    done = subprocess.run(
        [STEPEVAL, "test", "--lab", str(LAB), "--html", str(path)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1, done.stderr  # some scenarios are not as expected
    return path, done.stdout


@pytest.fixture(scope="module")
def report(played: tuple[Path, str]) -> Path:
    return played[0]


def test_piped_output_has_no_padding_to_the_console_width(played: tuple[Path, str]) -> None:
    lines = played[1].splitlines()
    assert any(line.startswith("01.01 ") for line in lines) and any("NOT OK" in line for line in lines), played[1]
    assert [line for line in lines if line != line.rstrip()] == []


def test_the_report_needs_nothing_from_the_network(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    assert not re.search(r"<(link|img|iframe)\b|<script[^>]+src=|@import|url\((?!#)", text)
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in text


def test_the_report_loads_clean_and_shows_every_step_and_a_failing_scenario(report: Path, browser) -> None:
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("request", lambda request: None if request.url.startswith("file:") else problems.append(request.url))
    page.goto(report.as_uri())
    assert problems == []
    steps = list(load_lab(LAB).steps)
    assert page.locator("svg.graph g.node").count() == len(steps)
    for key in steps:
        assert page.locator(f"svg.graph g.node[data-step='{key}']").is_visible()
    assert page.locator("svg.graph g.node.bad").count() >= 1
    failing = page.locator("details.scenario.notok[data-scenario='versioned_after_all']")
    assert failing.is_visible()
    assert "NOT as expected" in failing.locator("summary").inner_text()
    body = failing.locator(".body")
    assert not body.is_visible()
    failing.locator("summary").click()
    assert body.is_visible()
    assert "Expected fail ~ /(?i)versioning/, got pass." in body.inner_text()
    assert "events given: AWS::S3::Bucket checks-site" in body.inner_text()
    page.locator("svg.graph a[href='#step-02-02']").click()
    assert page.evaluate("location.hash") == "#step-02-02"
    page.close()


def test_printing_opens_every_answer(report: Path, browser) -> None:
    page = browser.new_page()
    page.goto(report.as_uri())
    page.emulate_media(media="print")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert page.locator("details:not([open])").count() == 0
    assert len(page.pdf()) > 10_000  # chromium lays it out for paper
    page.close()


def test_render_draws_an_arc_for_each_handle_passed_on() -> None:
    lab = load_lab(Path(__file__).parents[2])
    html = render(lab, [])
    arcs = set(re.findall(r"data-from='([0-9.]+)' data-to='([0-9.]+)'", html))
    assert ("01.01", "01.02") in arcs and ("02.01", "03.01") in arcs and ("03.01", "03.02") in arcs
    assert ("01.01", "02.01") not in arcs
