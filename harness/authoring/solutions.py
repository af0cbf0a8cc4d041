"""A lab's reference solutions in the platform's format: `solution/boto3/{objective}_{step}[_variant].py`.

Each is `async def run(session, context, logger)`, given `context = {"resolved": [...], "spec": {...}}` (the
handles of earlier steps and the step's slice of the spec); it builds the step's outputs and returns
`{"success": True, "resources": [{"name", "type", "id"}, ...]}` (one entry per output of the step; a "string"
output's id is its value), or `{"error": str(e), "code": ...}` when it could not. It never raises, and imports only
boto3, `botocore.exceptions.ClientError` and the standard library (`stepeval lint` says so).

A playthrough plays a step's first solution (`01_02.py` before `01_02_cli.py`) as its solve, and each other as a
scenario that must pass too. The resources a solution returns, ids written as AWS writes them (an emulator's queue
URL becomes `https://sqs.REGION.amazonaws.com/...`), are the later steps' `resolved`. Any break of the contract is
a `SolutionError` naming the step, the file and what is wrong.

Mutants a step's evaluator rightly accepts are marked beside the solutions, where no solution can import them
from: `solution/equivalent.yaml`, `{"01.02": [{"mutant": "Port=8080", "reason": "..."}]}`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from harness.authoring.events import aws_form
from harness.authoring.output import prints_to_stderr
from harness.authoring.prestart import SOLUTION_STEM, solution_paths
from harness.authoring.scenarios import EQUIVALENT_ATTRIBUTE, Equivalent, Scenario
from harness.core.contract import Handle
from harness.core.errors import LabError
from harness.core.lab import STRING, Lab, StepSpec
from harness.inside.loader import LoadError, StepRun, load_step, located, trimmed_traceback

EQUIVALENT_FILE = Path("solution") / "equivalent.yaml"
RESOURCE_KEYS = ("name", "type", "id")


class SolutionError(Exception):
    """A solution broke its contract (raised, returned an error, named a resource wrongly); the message says how."""


@dataclass(frozen=True)
class Solution:
    """One reference solution of one step: its file and its `run`."""

    key: str
    path: Path
    run: StepRun

    @property
    def name(self) -> str:
        """How results name it: the file's stem ("01_02", "01_02_cli")."""
        return self.path.stem


def load_solutions(lab: Lab) -> dict[str, tuple[Solution, ...]]:
    """Every `solution/boto3/NN_NN*.py` of the lab by step key, the step's own file first, then the variants in
    name order; LabError names each file that is wrong (not a step's, does not import, no proper `run`)."""
    found: dict[str, list[Solution]] = {}
    problems: list[str] = []
    for path in solution_paths(lab.root):
        match = SOLUTION_STEM.fullmatch(path.stem)
        key = match["key"].replace("_", ".") if match else None
        if key is None:
            problems.append(f"{path}: the file name is not a step key such as 01_02.py (or 01_02_cli.py)")
        elif key not in lab.steps:
            problems.append(f"{path}: no step {key} in this lab (steps: {', '.join(lab.steps)})")
        else:
            try:
                found.setdefault(key, []).append(Solution(key, path, load_step(path)))
            except LoadError as exc:
                problems.append(located(path, key, str(exc)))
    if problems:
        raise LabError(problems)
    return {
        key: tuple(sorted(each, key=lambda s: (s.name != s.key.replace(".", "_"), s.name)))
        for key, each in found.items()
    }


def run_solution(solution: Solution, session: Any, resolved: Sequence[Handle], step: StepSpec) -> list[Handle]:
    """Run `solution` on `session` (its prints to stderr) given the handles of earlier steps; the resources it
    returns as handles, ids in AWS's form for the session's region. SolutionError when it breaks the contract."""
    where = f"step {step.key}: solution {solution.path.name}"
    context = {"resolved": [handle.model_dump() for handle in resolved], "spec": step.slice()}
    logger = logging.getLogger(f"stepeval.solution.{solution.name}")
    try:
        with prints_to_stderr():
            result = asyncio.run(solution.run(session, context, logger))
    except Exception as exc:
        raise SolutionError(
            f"{where} raised (a solution returns an error instead):\n{trimmed_traceback(exc, solution.path)}"
        ) from exc
    return resources(result, step, where, session.region_name)


def resources(result: Any, step: StepSpec, where: str, region: str | None) -> list[Handle]:
    """The handles a solution's `result` names, checked against the step's outputs (each once, of its type)."""
    if not isinstance(result, dict):
        raise SolutionError(f"{where} returned {type(result).__name__}, not a dict")
    if "error" in result:
        raise SolutionError(f"{where} returned an error: {result.get('code') or 'no code'}: {result['error']}")
    if result.get("success") is not True:
        raise SolutionError(f"{where} returned success {result.get('success')!r}, not true (nor an error)")
    listed = result.get("resources")
    if not isinstance(listed, list):
        raise SolutionError(f"{where}: resources is {type(listed).__name__}, not a list")
    outputs = step.output_types
    handles: dict[str, Handle] = {}
    for index, entry in enumerate(listed):
        at = f"{where}: resources[{index}]"
        if not isinstance(entry, dict) or any(not isinstance(entry.get(k), str) or not entry[k] for k in RESOURCE_KEYS):
            raise SolutionError(f"{at} is not {{name, type, id}} with three non-empty strings: {entry!r}")
        name, kind = entry["name"], entry["type"]
        if name not in outputs:
            raise SolutionError(f"{at}: {name} is not an output of step {step.key} (outputs: {', '.join(outputs)})")
        if kind != outputs[name]:
            raise SolutionError(f"{at}: {name} is a {outputs[name]} in the spec, not a {kind}")
        if name in handles:
            raise SolutionError(f"{at}: {name} is named twice")
        handles[name] = Handle(name=name, type=kind, id=normalized(entry["id"], kind, region))
    missing = [name for name in outputs if name not in handles]
    if missing:
        raise SolutionError(f"{where} returned no resource named {', '.join(missing)} (an output of the step)")
    return [handles[name] for name in outputs]


def normalized(resource_id: str, resource_type: str, region: str | None) -> str:
    """An id as AWS writes it, as recorded events are: a resource's URL on an emulator gets its service's endpoint
    (the type's service: `AWS::SQS::Queue` -> sqs). A "string" output's value is kept as returned."""
    if resource_type == STRING:
        return resource_id
    return aws_form(resource_id, resource_type.split("::")[1].lower(), region)


def solution_scenario(solution: Solution, step: StepSpec, handle_types: Mapping[str, str]) -> Scenario:
    """The solution as a scenario: it acts with the handles so far and returns the handles it resolved; it must
    pass (kind "solve": the step's solve, or another reference solution played beside it)."""

    def act(aws: Any, handles: dict[str, str]) -> list[Handle]:
        resolved = [Handle(name=name, type=handle_types[name], id=value) for name, value in handles.items()]
        return run_solution(solution, aws, resolved, step)

    act.__name__ = solution.name
    return Scenario(solution.name, act, "solve")


def load_equivalents(lab: Lab) -> dict[str, tuple[Equivalent, ...]]:
    """The marks in `solution/equivalent.yaml` by step key (none without the file); LabError names what is wrong."""
    path = lab.root / EQUIVALENT_FILE
    if not path.is_file():
        return {}
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise LabError([f"{path}: cannot read: {' '.join(str(exc).split())}"]) from None
    if not isinstance(raw, dict):
        raise LabError([f"{path}: expected a mapping of step keys to lists of {{mutant, reason}}"])
    marks: dict[str, tuple[Equivalent, ...]] = {}
    problems: list[str] = []
    for key, entries in raw.items():
        step = str(key).replace("_", ".")
        if step not in lab.steps:
            problems.append(f"{path}: {key}: no step {step} in this lab")
            continue
        good = isinstance(entries, list) and all(
            isinstance(e, dict)
            and set(e) == {"mutant", "reason"}
            and all(isinstance(v, str) and v.strip() for v in e.values())
            for e in entries
        )
        if not good:
            problems.append(f"{path}: {key}: expected a list of {{mutant: PATTERN, reason: WHY}}")
            continue
        marks[step] = tuple(Equivalent(e["mutant"], e["reason"]) for e in entries)
    if problems:
        raise LabError(problems)
    return marks


def marked(scenario: Scenario, marks: Sequence[Equivalent]) -> Scenario:
    """The scenario with `marks` on its action, as `@equivalent` puts them (`scenarios.equivalents` reads them)."""
    if marks:
        setattr(scenario.action, EQUIVALENT_ATTRIBUTE, tuple(marks))
    return scenario
