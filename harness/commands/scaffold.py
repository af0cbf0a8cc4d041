"""`stepeval new STEP`: a step module in the kit's shape and a scenario skeleton, written from the spec.

It never overwrites: an author's work is not replaced by a template.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from harness.core import cfn_types
from harness.core.errors import BadInput
from harness.core.lab import StepSpec
from harness.kit import catalog

TODO_HINT = "no kit Kind for {type}: write one, or check it by hand with step.check(...)"


def scaffold(step: StepSpec, lab_root: Path, handle_types: dict[str, str]) -> list[Path]:
    """Write the module and the scenario file for `step`; BadInput if either exists already."""
    module = step.module_path
    scenario = lab_root / "scenarios" / f"{step.stem}.py"
    existing = [str(p) for p in (module, scenario) if p.exists()]
    if existing:
        raise BadInput(f"step {step.key}: {', '.join(existing)} already exist(s); stepeval new never overwrites")
    module.parent.mkdir(parents=True, exist_ok=True)
    scenario.parent.mkdir(parents=True, exist_ok=True)
    module.write_text(module_text(step, handle_types), encoding="utf-8")
    scenario.write_text(scenario_text(step), encoding="utf-8")
    return [module, scenario]


def _kind(resource_type: str) -> str | None:
    found = catalog.reference(resource_type)
    return f"{found[0]}.{found[1]}" if found else None


def _todo(name: str, resource_type: str) -> str:
    """A call `stepeval check` reports and the step answers as unfinished (a fail naming the TODO, no traceback)."""
    return f'        step.todo("{name}",\n                  "{TODO_HINT.format(type=resource_type)}")'


def _instruction(step: StepSpec) -> str:
    text = step.step.description or step.step.title or f"Step {step.key}."
    return "\n".join(textwrap.wrap(" ".join(text.split()), 110))


def module_text(step: StepSpec, handle_types: dict[str, str]) -> str:
    """The module: the instruction as docstring, inputs re-verified, each output found with requirements to fill
    (several outputs of one type in one joint `find_all`); a `step.todo(...)` for each handle of a type the kit has
    no Kind for."""
    types = [*step.output_types.values(), *step.input_types.values()]
    used = {reference[0] for t in types if (reference := catalog.reference(t))}
    lines = [f'"""{_instruction(step)}"""', ""]
    if used:
        lines.append(f"from harness.kit import {', '.join(sorted(used))}")
    lines += [
        "from harness.kit.step import Step",
        "",
        "",
        "async def run(session, context, logger):",
        "    step = Step(session, context, logger)",
        "    with step:",
    ]
    for name in step.step.inputs:
        kind = _kind(handle_types[name])
        variable = name.split("_", 2)[-1]
        lines.append(f'        {variable} = step.input("{name}", {kind})' if kind else _todo(name, handle_types[name]))
    by_type: dict[str, list[str]] = {}
    for name, resource_type in step.output_types.items():
        by_type.setdefault(resource_type, []).append(name)
    for resource_type, names in by_type.items():
        kind = _kind(resource_type)
        if kind is None:
            lines += [_todo(name, resource_type) for name in names]
        elif len(names) == 1:
            lines += [f'        step.find("{names[0]}", {kind}, [', _requirements_todo(kind, 12), "        ])"]
        else:
            lines += _joint_find(kind, names)
    lines += ["    return step.result()", ""]
    return "\n".join(lines)


def _requirements_todo(kind: str, indent: int) -> str:
    return f"{' ' * indent}# TODO: the requirements the instruction states (see docs/user.md for {kind}'s)"


def _joint_find(kind: str, names: list[str]) -> list[str]:
    """Several outputs of one type as one `find_all`: the step gives each a distinct resource by the requirements
    each states (see docs/user.md, Matching), never by order."""
    lines = [
        f"        step.find_all({kind}, {{",
        "            # matched together: each gets a distinct resource, told apart by its requirements (which may",
        "            # refer to another output: step.output(name))",
    ]
    for name in names:
        lines += [f'            "{name}": [', _requirements_todo(kind, 16), "            ],"]
    return [*lines, "        })"]


def _calls(step: StepSpec) -> str:
    """The API calls that make this step's outputs, as the CloudFormation schemas name them."""
    calls = []
    for resource_type in step.output_types.values():
        found = cfn_types.info(resource_type)
        calls += [c for c in (found.creating_calls[:1] if found else ()) if c not in calls]
    return ", ".join(calls) or "the calls a learner would make"


def scenario_text(step: StepSpec) -> str:
    """The scenario file: a solve and one mistake to fill in."""
    return textwrap.dedent(f'''\
        """Scenarios for step {step.key}: how a learner solves it, and the common mistakes."""

        from harness.authoring.scenarios import mistake, solve


        @solve
        def solve_step(aws, handles):
            """{_instruction(step).splitlines()[0]}"""
            raise NotImplementedError("make the calls a learner would: {_calls(step)}")


        @mistake(issue=r"(?i)TODO: the issue this mistake must produce")
        def common_mistake(aws, handles):
            raise NotImplementedError("the solve with one thing a learner often gets wrong")
        ''')
