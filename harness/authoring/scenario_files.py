"""A lab's scenario files (`scenarios/NN_NN.py`): loaded, checked, by step."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from harness.authoring.prestart import SCENARIO_DIR
from harness.authoring.scenarios import SCENARIO_ATTRIBUTE, Scenario
from harness.core.errors import LabError
from harness.core.lab import Lab
from harness.inside.loader import LoadError, import_step

STEM = re.compile(r"[0-9]{2}_[0-9]{2}")


@dataclass(frozen=True)
class StepScenarios:
    """The scenarios of one step, as written in `scenarios/NN_NN.py`."""

    key: str
    path: Path
    solve: Scenario
    mistakes: tuple[Scenario, ...]


def load_scenarios(lab: Lab) -> dict[str, StepScenarios]:
    """Every `scenarios/NN_NN.py` of the lab, by step key; LabError names each file that is wrong."""
    directory = lab.root / SCENARIO_DIR
    paths = sorted(directory.glob("[!_]*.py")) if directory.is_dir() else []
    found: dict[str, StepScenarios] = {}
    problems: list[str] = []
    for path in paths:
        try:
            key = _step_key(lab, path)
            found[key] = _load_file(key, path)
        except LabError as exc:
            problems.extend(exc.problems)
    if problems:
        raise LabError(problems)
    return found


def _step_key(lab: Lab, path: Path) -> str:
    if not STEM.fullmatch(path.stem):
        raise LabError([f"{path}: the file name is not a step key such as 01_02.py"])
    key = path.stem.replace("_", ".")
    if key not in lab.steps:
        raise LabError([f"{path}: no step {key} in this lab (steps: {', '.join(lab.steps)})"])
    return key


def _load_file(key: str, path: Path) -> StepScenarios:
    where = f"{path}: step {key}"
    try:
        module = import_step(path)
    except LoadError as exc:
        raise LabError([f"{where}: {exc}"]) from None
    marked = (getattr(value, SCENARIO_ATTRIBUTE, None) for value in vars(module).values())
    scenarios = [s for s in marked if isinstance(s, Scenario)]
    solves = [s for s in scenarios if s.kind == "solve"]
    problems = []
    if len(solves) != 1:
        named = ", ".join(s.name for s in solves)
        problems.append(f"{where}: needs exactly one @solve (found {len(solves)}{': ' if named else ''}{named})")
    for scenario in scenarios:
        try:
            re.compile(scenario.issue or "")
        except re.error as exc:
            problems.append(f"{where}: {scenario.name}: issue pattern {scenario.issue!r} is not a regex: {exc}")
    if problems:
        raise LabError(problems)
    mistakes = tuple(s for s in scenarios if s.kind == "mistake")
    return StepScenarios(key, path, solves[0], mistakes)
