"""`-k PATTERN`: which scenarios a playthrough plays and shows, the same for `stepeval test`, `mutate`, `report` and
the pytest plugin.

A scenario is selected when PATTERN, case-insensitive, is part of its step's key written either way (`01.02`,
`01_02`, `1.0`) or of its name (`both_in_one_zone`, `zone`, `untouched`). A step is played when one of its scenarios
is selected (with the solves before it, as the state it starts from). A pattern that selects nothing is bad input
that names it: a typo in CI must not pass as "0 scenarios, all as expected".
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.authoring.playthrough import UNTOUCHED, ScenarioResult, StepScenarios
from harness.core.errors import BadInput


def matches(pattern: str, step: str, scenario: str) -> bool:
    """Whether `pattern` selects scenario `scenario` of step `step` (the rule in this module's docstring)."""
    needle = pattern.strip().lower()
    return needle in step or needle.replace("_", ".") in step or needle in scenario.lower()


@dataclass(frozen=True)
class Selection:
    """What `-k PATTERN` selected: the (step, scenario) pairs, and so the steps to play."""

    pattern: str
    scenarios: frozenset[tuple[str, str]]

    @property
    def steps(self) -> frozenset[str]:
        return frozenset(step for step, _ in self.scenarios)

    def plays(self, step: str) -> bool:
        """Whether the step's scenarios are played (a step before it still plays its solve, as the start state)."""
        return step in self.steps

    def shows(self, result: ScenarioResult) -> bool:
        """Whether a result is reported: a selected scenario, or an earlier step's solve that did not pass (why the
        selected ones could not be played)."""
        return (result.step, result.scenario) in self.scenarios or (result.step not in self.steps and not result.ok)


def select(
    pattern: str | None, scenarios: dict[str, StepScenarios], where: str, what: str = "scenario"
) -> Selection | None:
    """The selection `-k pattern` makes among a lab's scenarios (None: no pattern, everything); BadInput naming the
    pattern when it selects nothing. `where`: the lab, as the message names it; `what`: what the command plays
    (`stepeval mutate`: a mutant)."""
    if pattern is None:
        return None
    chosen = frozenset(
        (key, name)
        for key, step in scenarios.items()
        for name in (UNTOUCHED, *(m.name for m in step.mistakes), step.solve.name)
        if matches(pattern, key, name)
    )
    if not pattern.strip() or not chosen:
        keys = ", ".join(sorted(scenarios)) or "none"
        raise BadInput(
            f"-k {pattern!r} selects no {what} in {where}: no step key ({keys}) or scenario name contains it"
        )
    return Selection(pattern, chosen)
