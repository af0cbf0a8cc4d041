"""Scenario listings and answers for people: wrapped at words in the console's width (80 columns in a pipe), what
was expected in words, near misses said as such, long runs brief, no blank header."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from harness.authoring.playthrough import ScenarioResult
from harness.commands.expectations import expected_in_words, issue_in_words
from harness.commands.render import LONG_RUN, answer_panel, results_table
from harness.core.contract import Answer

ISSUE = (
    "Alarm items-api-errors: it watches AWS/Lambda/Errors of function items-api over 300 s, not "
    "AWS/Lambda/Throttles; load balancer arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/app/web/7bc4"
)


def result(name: str, *, ok: bool = True, expected: str = "fail", issue: str | None = ISSUE) -> ScenarioResult:
    pattern = r"(?i)AWS/Lambda/Errors|throttles" if expected == "fail" else None
    got = expected if ok else ("pass" if expected == "fail" else "fail")
    return ScenarioResult("02.02", name, "mistake", expected, pattern, got, issue, ok, 812.0, "" if ok else "why")


def rendered(renderable: object, width: int = 80) -> str:
    out = io.StringIO()
    Console(file=out, width=width, force_terminal=False, color_system=None).print(renderable)
    return out.getvalue()


def words_of(text: str) -> set[str]:
    return set(re.findall(r"[\w/:.\-]+", text))


@pytest.mark.parametrize("width", [80, 100, 160])
def test_a_listing_splits_no_word_at_the_width_given(width: int) -> None:
    text = rendered(results_table([result("alarm_on_the_wrong_metric")], brief=False), width)
    assert all(len(line.rstrip()) <= width for line in text.splitlines())
    for word in ("AWS/Lambda/Errors", "AWS/Lambda/Throttles;", "alarm_on_the_wrong_metric", "items-api-errors:"):
        assert word in words_of(text) or word.rstrip(";:") in words_of(text), (word, text)


def test_a_listing_says_what_was_expected_in_words_and_has_no_header() -> None:
    results = [result("alarm_on_the_wrong_metric"), result("solved", expected="pass")]
    text = rendered(results_table(results), width=160)
    flowing = " ".join(text.split())
    assert "fails on AWS/Lambda/Errors or throttles" in flowing and "(?i)" not in flowing
    assert "solved (variant): passes" in flowing  # a mistake expected to pass is another right way, no mistake
    assert "alarm_on_the_wrong_metric (mistake): fails" in flowing
    assert text.splitlines()[0].startswith("02.02 ok alarm_on_the_wrong_metric")  # no header row, blank or not


def test_a_long_run_is_brief_but_keeps_what_is_not_as_expected() -> None:
    results = [result(f"mistake_{n}") for n in range(LONG_RUN)] + [result("the_wrong_one", ok=False)]
    text = rendered(results_table(results))
    assert text.count("Alarm items-api-errors") == 1  # only the one not as expected shows its issue
    assert "NOT OK the_wrong_one" in " ".join(text.split()) and "got pass" in text
    as_expected = [line for line in text.splitlines() if " ok " in line]
    assert len(as_expected) == LONG_RUN and all(line.rstrip().endswith("812 ms") for line in as_expected)


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (r"(?i)versioning", "versioning"),
        (r"(?i)route 0\.0\.0\.0/0", "route 0.0.0.0/0"),
        (r"(?i)public ipv4|MapPublicIpOnLaunch", "public ipv4 or MapPublicIpOnLaunch"),
        (r"(?i)^(?!.*also allows).*does not allow TCP 80", 'does not allow TCP 80 (not "also allows")'),
        (r"may also logs:.*\(inline\)", "may also logs: … (inline)"),
        (r"a[bc]", None),
        (r"x+", None),
    ],
)
def test_an_issue_pattern_in_words(pattern: str, words: str | None) -> None:
    assert issue_in_words(pattern) == words


def test_a_pattern_beyond_words_is_shown_as_written() -> None:
    odd = ScenarioResult("01.01", "m", "mistake", "fail", r"port (80|443)", "fail", "x", True, 1.0, "")
    assert expected_in_words(odd) == "fails on an issue matching /port (80|443)/"


def test_a_near_miss_is_not_called_not_found() -> None:
    answer = Answer.model_validate(
        {
            "step": "02.02",
            "status": "fail",
            "success": False,
            "message": "8 of 9 checks passed.",
            "validated": [
                {"name": "02_02_public_subnet_a", "type": "AWS::EC2::Subnet", "id": "subnet-ac757f8290996dd9d",
                 "status": "found"},
                {"name": "02_02_public_subnet_b", "type": "AWS::EC2::Subnet", "id": "subnet-c1fc2d65a9fad68ac",
                 "status": "not_found"},
                {"name": "02_02_nat", "type": "AWS::EC2::NatGateway", "id": None, "status": "not_found"},
            ],
            "resolved": [],
            "duration_ms": 3.0,
        }
    )  # fmt: skip
    text = rendered(answer_panel(answer, "both_in_one_zone"))
    assert "not_found" not in text
    assert re.search(r"02_02_public_subnet_b\s+subnet-c1fc2d65a9fad68ac\s+not as asked", text), text
    assert re.search(r"02_02_nat\s+-\s+not found", text), text
    assert "subnet-ac757f8290996dd9d" in text  # an id is never cut at 80 columns when it fits
