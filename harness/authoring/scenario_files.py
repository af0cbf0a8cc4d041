"""A lab's scenarios by step: its reference solutions (`solution/boto3/`) and scenario files (`scenarios/NN_NN.py`),
loaded and checked. A step's solve is its first solution if it has one (its scenario file then holds only
mistakes), else its file's `@solve`; its other solutions are played beside it and must pass too."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from harness.authoring.moved import say_deprecated
from harness.authoring.prestart import SCENARIO_DIR, SOLUTION_STEM, solution_paths
from harness.authoring.scenarios import SCENARIO_ATTRIBUTE, Equivalent, Scenario
from harness.authoring.solutions import Solution, load_equivalents, load_solutions, marked, solution_scenario
from harness.core.errors import LabError
from harness.core.lab import Lab
from harness.inside.loader import LoadError, import_step, located

STEM = re.compile(r"[0-9]{2}_[0-9]{2}")


@dataclass(frozen=True)
class StepScenarios:
    """The scenarios of one step: its solve, its mistakes (and its other reference solutions, which must pass).

    `path` is the file of its solve (a traceback is trimmed to it); `sources` every file its scenarios come from.
    """

    key: str
    path: Path
    solve: Scenario
    mistakes: tuple[Scenario, ...]
    sources: tuple[Path, ...] = ()


def load_scenarios(lab: Lab) -> dict[str, StepScenarios]:
    """Every step's scenarios, from its solutions and its `scenarios/NN_NN.py`, by step key in spec order; LabError
    names each file that is wrong."""
    directory = lab.root / SCENARIO_DIR
    paths = sorted(directory.glob("[!_]*.py")) if directory.is_dir() else []
    problems: list[str] = []
    try:
        solutions = load_solutions(lab)
        marks = load_equivalents(lab)
    except LabError as exc:
        problems.extend(exc.problems)
        solutions, marks = {}, {}
    unloaded = {key for key in _keys_with_solution_files(lab) if key not in solutions}  # their problem is said
    files: dict[str, tuple[Path, list[Scenario]]] = {}
    for path in paths:
        try:
            key = _step_key(lab, path)
            files[key] = (path, _load_file(key, path))
        except LabError as exc:
            problems.extend(exc.problems)
    found: dict[str, StepScenarios] = {}
    for key in lab.steps:
        try:
            if key in solutions:
                found[key] = _solved_by_solutions(lab, key, solutions[key], files.get(key), marks.get(key, ()))
            elif key in files and key not in unloaded:
                found[key] = _solved_by_scenarios(key, *files[key])
        except LabError as exc:
            problems.extend(exc.problems)
    if problems:
        raise LabError(problems)
    return found


def _solved_by_solutions(
    lab: Lab,
    key: str,
    solutions: tuple[Solution, ...],
    file: tuple[Path, list[Scenario]] | None,
    marks: tuple[Equivalent, ...],
) -> StepScenarios:
    """The first solution as the solve, the scenario file's mistakes, then the other solutions (to pass)."""
    step = lab.steps[key]
    played = [solution_scenario(solution, step, lab.handle_types) for solution in solutions]
    path, scenarios = file if file is not None else (None, [])
    solves = [s.name for s in scenarios if s.kind == "solve"]
    if solves:
        raise LabError(
            [
                f"{path}: step {key}: @solve {', '.join(solves)} beside {solutions[0].path}: a step with a solution "
                "is solved by it (keep scenarios/ for its mistakes)"
            ]
        )
    mistakes = tuple(s for s in scenarios if s.kind == "mistake")
    sources = tuple(s.path for s in solutions) + ((path,) if path is not None else ())
    return StepScenarios(key, solutions[0].path, marked(played[0], marks), (*mistakes, *played[1:]), sources)


def _solved_by_scenarios(key: str, path: Path, scenarios: list[Scenario]) -> StepScenarios:
    """The file's one `@solve` and its mistakes."""
    solves = [s for s in scenarios if s.kind == "solve"]
    if len(solves) != 1:
        named = ", ".join(s.name for s in solves)
        where = f"{path}: step {key}"
        raise LabError([f"{where}: needs exactly one @solve (found {len(solves)}{': ' if named else ''}{named})"])
    mistakes = tuple(s for s in scenarios if s.kind == "mistake")
    return StepScenarios(key, path, solves[0], mistakes, (path,))


def _keys_with_solution_files(lab: Lab) -> set[str]:
    """The steps with a solution file, whether or not it loads."""
    return {
        m["key"].replace("_", ".") for path in solution_paths(lab.root) if (m := SOLUTION_STEM.fullmatch(path.stem))
    }


def _say_deprecated(caught: list[warnings.WarningMessage]) -> None:
    """A moved name a lab file uses, said once in one line on stderr (docs/user.md, "The public API"): the file
    still loads, and its author learns where the name lives now."""
    for warning in caught:
        if issubclass(warning.category, DeprecationWarning):
            say_deprecated(warning.filename, warning.lineno, str(warning.message))


def _step_key(lab: Lab, path: Path) -> str:
    if not STEM.fullmatch(path.stem):
        raise LabError([f"{path}: the file name is not a step key such as 01_02.py"])
    key = path.stem.replace("_", ".")
    if key not in lab.steps:
        raise LabError([f"{path}: no step {key} in this lab (steps: {', '.join(lab.steps)})"])
    return key


def _load_file(key: str, path: Path) -> list[Scenario]:
    """The scenarios the file marks, in the order written; LabError names a bad issue pattern."""
    where = f"{path}: step {key}"
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DeprecationWarning)
            module = import_step(path)
        _say_deprecated(caught)
    except LoadError as exc:
        raise LabError([located(path, key, str(exc))]) from None
    tagged = (getattr(value, SCENARIO_ATTRIBUTE, None) for value in vars(module).values())
    scenarios = [s for s in tagged if isinstance(s, Scenario)]
    problems = []
    for scenario in scenarios:
        try:
            re.compile(scenario.issue or "")
        except re.error as exc:
            problems.append(f"{where}: {scenario.name}: issue pattern {scenario.issue!r} is not a regex: {exc}")
    if problems:
        raise LabError(problems)
    return scenarios
