"""`-k PATTERN` selects scenarios the documented ways (step key either way, a scenario name, a substring) and a
pattern that selects nothing is bad input naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.authoring.playthrough import UNTOUCHED, ScenarioResult, load_scenarios
from harness.authoring.selection import Selection, matches, select
from harness.core.errors import BadInput
from harness.core.lab import load_lab

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def scenarios() -> dict:
    return load_scenarios(load_lab(REPO))  # the sample lab: 8 steps


def chosen(selection: Selection | None) -> set[tuple[str, str]]:
    assert selection is not None
    return set(selection.scenarios)


@pytest.mark.parametrize("pattern", ["01.02", "01_02", " 01_02 "])
def test_a_step_key_either_way_selects_every_scenario_of_that_step(scenarios: dict, pattern: str) -> None:
    step = scenarios["01.02"]
    expected = {("01.02", name) for name in (UNTOUCHED, *(m.name for m in step.mistakes), step.solve.name)}
    assert chosen(select(pattern, scenarios, "lab")) == expected


def test_a_scenario_name_selects_that_scenario(scenarios: dict) -> None:
    selection = select("both_in_one_zone", scenarios, "lab")
    assert chosen(selection) == {("02.02", "both_in_one_zone")}
    assert selection is not None and selection.steps == {"02.02"} and selection.plays("02.02")
    assert not selection.plays("02.01")  # played only as the solve it starts from


def test_a_substring_selects_whatever_contains_it_case_insensitive(scenarios: dict) -> None:
    got = chosen(select("ZONE", scenarios, "lab"))
    assert got and all("zone" in name for _, name in got)
    assert ("02.02", "both_in_one_zone") in got
    assert {step for step, _ in chosen(select("02.0", scenarios, "lab"))} == {"02.01", "02.02", "02.03", "02.04"}
    assert {name for _, name in chosen(select("untouched", scenarios, "lab"))} == {UNTOUCHED}


@pytest.mark.parametrize("pattern", ["01_09", "no_such_scenario", "", "  "])
def test_a_pattern_that_selects_nothing_is_bad_input_naming_it(scenarios: dict, pattern: str) -> None:
    with pytest.raises(BadInput) as raised:
        select(pattern, scenarios, "the-lab")
    message = str(raised.value)
    assert f"-k {pattern!r} selects no scenario in the-lab" in message and "01.01, 01.02" in message
    assert "\n" not in message


def test_mutate_s_pattern_that_selects_nothing_names_a_mutant(scenarios: dict) -> None:
    with pytest.raises(BadInput, match=r"^-k '01_09' selects no mutant in the-lab: no step key \(01.01"):
        select("01_09", scenarios, "the-lab", "mutant")


def test_no_pattern_selects_everything(scenarios: dict) -> None:
    assert select(None, scenarios, "lab") is None


def test_shown_results_are_the_selected_ones_and_the_broken_solves_before_them() -> None:
    selection = Selection("zone", frozenset({("02.02", "both_in_one_zone")}))

    def result(step: str, scenario: str, ok: bool) -> ScenarioResult:
        return ScenarioResult(step, scenario, "mistake", "fail", None, "fail", None, ok, 1.0, "")

    assert selection.shows(result("02.02", "both_in_one_zone", True))
    assert not selection.shows(result("02.02", "events_reversed", True))  # played with its step, not shown
    assert not selection.shows(result("02.01", "vpc_with_dns", True))  # an earlier solve that passed
    assert selection.shows(result("02.01", "vpc_with_dns", False))  # one that did not: why 02.02 could not play


def test_matching_reads_a_key_written_with_underscores() -> None:
    assert matches("01_02", "01.02", "anything") and matches("1_0", "01.02", "x") and not matches("01_03", "01.02", "x")
