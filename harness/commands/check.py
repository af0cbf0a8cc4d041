"""`stepeval check`: the spec validates, every step has a module, every module a step, each loads and lints clean
(and so do the lab's reference solutions and scenarios, loaded as `stepeval test` loads them)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

from harness.commands.lint import lint_lib, lint_module, lint_scenarios, lint_solutions
from harness.core.errors import LabError, LabUnreadable
from harness.core.lab import Lab, load_lab
from harness.core.paths import MODULE_DIR, STEP_KEY
from harness.sandbox.pool import WorkerPool, loading_pool
from harness.sandbox.runner import Runner


def check_lab(lab_dir: Path, pool: WorkerPool | None = None) -> tuple[list[str], str]:
    """Every problem as one line naming file and step, and a one-line summary; LabUnreadable (bad input) for a lab
    that cannot be read at all.

    Modules load in `pool` (started early by the caller, so that it starts while the spec is read), else in a
    `loading_pool` of its own; several at once.
    """
    try:
        lab = load_lab(lab_dir)
    except LabUnreadable:
        raise  # bad input (exit 2), as every command says it
    except LabError as exc:
        return exc.problems, f"{counted(len(exc.problems), 'problem')} in the spec"
    problems: list[str] = []
    module_dir = lab.root / MODULE_DIR
    stems = {step.stem for step in lab.steps.values()}
    present = {path.stem for path in module_dir.glob("*.py") if not path.name.startswith("_")}
    for stem in sorted(present - stems):
        path = module_dir / f"{stem}.py"
        if STEP_KEY.fullmatch(stem):
            problems.append(f"{path}: no step {stem.replace('_', '.')} in {lab.spec_file.name}")
        else:
            problems.append(f"{path}: not named after a step (expected NN_NN.py)")
    with ExitStack() as stack:
        runner = Runner(lab, pool or stack.enter_context(loading_pool()))
        steps = [step for step in lab.steps.values() if step.stem in present]
        with ThreadPoolExecutor(runner.pool.size) as threads:
            loaded = dict(zip([step.key for step in steps], threads.map(runner.check_module, steps), strict=True))
        for step in lab.steps.values():
            if step.key not in loaded:
                problems.append(f"{step.module_path}: step {step.key}: module missing")
                continue
            problem = loaded[step.key]
            problems.extend([problem] if problem else map(str, lint_module(step)))
    problems.extend(map(str, lint_lib(lab) + lint_solutions(lab) + lint_scenarios(lab)))
    problems.extend(_scenario_problems(lab, problems))
    summary = f"{counted(len(lab.steps), 'step')}, {counted(len(present), 'module')}: " + (
        counted(len(problems), "problem") if problems else "all good"
    )
    return problems, summary


def _scenario_problems(lab: Lab, said: list[str]) -> list[str]:
    """What loading the lab's solutions and scenarios finds (as `stepeval test` loads them: an import that fails, a
    step without a solve), but not at a file and line a problem in `said` names already."""
    from harness.authoring.scenario_files import load_scenarios

    try:
        load_scenarios(lab)
    except LabError as exc:
        located = {problem.split(" step ", 1)[0] for problem in said}
        return [p for p in dict.fromkeys(exc.problems) if p.split(" step ", 1)[0] not in located]
    return []


def counted(count: int, noun: str) -> str:
    """`1 step`, `2 steps`."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
