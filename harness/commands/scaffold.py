"""`stepeval new STEP`: a step module in the kit's shape, a reference solution and a mistakes skeleton, written
from the spec; with `--from-solution`, the step module drafted from its solution (harness.authoring.drafts.drafting).

It never overwrites: an author's work is not replaced by a template (a draft replaces a module only with --force).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from harness.authoring.module_head import instruction, module_head
from harness.authoring.prestart import SCENARIO_DIR, SOLUTION_DIR
from harness.core import cfn_types
from harness.core.errors import BadInput, LabError
from harness.core.lab import STRING, Lab, StepSpec
from harness.kit import catalog

# What `stepeval new` leaves to write, as it writes it: `stepeval check` and `lint` name each one left (lint.py)
REQUIREMENTS_TODO = "# TODO: the requirements the instruction states"
SOLUTION_TODO = "this solution is not written yet"
ISSUE_TODO = "TODO: the issue this mistake must produce"
TODO_HINT = "no kit Kind for {type}: write one, or check it by hand with step.check(...)"
HANDLES = '    handles = {h["name"]: h["id"] for h in context["resolved"]}  # the earlier steps\' resources'
VALUE_HINT = "find the value and judge it: step.value('{name}', value, [values.is_arn(...)])"


def scaffold(step: StepSpec, lab_root: Path, handle_types: dict[str, str]) -> list[Path]:
    """Write the module, the solution and the scenario file (mistakes) for `step`; BadInput if one exists already."""
    texts = {
        step.module_path: module_text(step, handle_types),
        lab_root / SOLUTION_DIR / f"{step.stem}.py": solution_text(step),
        lab_root / SCENARIO_DIR / f"{step.stem}.py": scenario_file(step),
    }
    existing = [str(p) for p in texts if p.exists()]
    if existing:
        verb = "already exists" if len(existing) == 1 else "already exist"
        raise BadInput(f"step {step.key}: {', '.join(existing)} {verb}; stepeval new never overwrites")
    for path, text in texts.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(texts)


def write_draft(lab: Lab, key: str, *, force: bool = False, region: str | None = None) -> Path:
    """Draft step `key`'s evaluation from its solution (harness.authoring.drafts.drafting) and write it; BadInput if the
    module exists (unless `force`), the step has no solution, or the solution fails."""
    from harness.authoring.drafts.drafting import draft  # plays moto: imported when drafting only
    from harness.authoring.solutions import SolutionError

    step = lab.step(key)
    if step.module_path.exists() and not force:
        raise BadInput(f"step {step.key}: {step.module_path} already exists; --force replaces it with a draft")
    try:
        text = draft(lab, step.key, region=region)
    except LabError as error:
        raise BadInput(error.problems[-1]) from None
    except SolutionError as error:
        raise BadInput(f"step {step.key}: the solution cannot be drafted from: {error}") from None
    step.module_path.parent.mkdir(parents=True, exist_ok=True)
    step.module_path.write_text(text, encoding="utf-8")
    return step.module_path


def _kind(resource_type: str) -> str | None:
    found = catalog.reference(resource_type)
    return f"{found[0]}.{found[1]}" if found else None


def _todo(name: str, resource_type: str, note: str | None = None) -> str:
    """A call `stepeval check` reports and the step answers as unfinished (a fail naming the TODO, no traceback)."""
    return f'        step.todo("{name}",\n                  "{note or TODO_HINT.format(type=resource_type)}")'


def module_text(step: StepSpec, handle_types: dict[str, str]) -> str:
    """The module: the instruction as docstring, inputs re-verified, each output found with requirements to fill
    (several outputs of one type in one joint `find_all`); a `step.todo(...)` for each handle of a type the kit has
    no Kind for."""
    types = [*step.output_types.values(), *step.input_types.values()]
    used = {reference[0] for t in types if (reference := catalog.reference(t))}
    lines = module_head(step, used)
    for name in step.step.inputs:
        kind = _kind(handle_types[name])
        variable = name.split("_", 2)[-1]
        if handle_types[name] == STRING:
            lines.append(f'        {variable} = step.input_value("{name}")')
            continue
        lines.append(f'        {variable} = step.input("{name}", {kind})' if kind else _todo(name, handle_types[name]))
    by_type: dict[str, list[str]] = {}
    for name, resource_type in step.output_types.items():
        by_type.setdefault(resource_type, []).append(name)
    for resource_type, names in by_type.items():
        kind = _kind(resource_type)
        if resource_type == STRING:
            lines += [_todo(name, resource_type, VALUE_HINT.format(name=name)) for name in names]
            continue
        if kind is None:
            lines += [_todo(name, resource_type) for name in names]
        elif len(names) == 1:
            lines += [f'        step.find("{names[0]}", {kind}, [', _requirements_todo(kind, 12), "        ])"]
        else:
            lines += _joint_find(kind, names)
    lines += ["    return step.result()", ""]
    return "\n".join(lines)


def _requirements_todo(kind: str, indent: int) -> str:
    return f"{' ' * indent}{REQUIREMENTS_TODO} (see docs/user.md for {kind}'s)"


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


def solution_text(step: StepSpec) -> str:
    """The reference solution in the platform's format: the calls to make, and one resource per output to return.
    Until it is written it returns an error (a solution never raises), which `stepeval test` reports."""
    outputs = step.output_types.items()
    resources = [f'            # {{"name": "{name}", "type": "{kind}", "id": ...}},' for name, kind in outputs]
    lines = [
        f'"""{instruction(step)}"""',
        "",
        "from botocore.exceptions import ClientError",
        "",
        "",
        "async def run(session, context, logger):",
        *([HANDLES] if step.step.inputs else []),
        "    try:",
        f"        # TODO: make the calls a learner would: {_calls(step)}; then return the resources below",
        f'        return {{"error": "{SOLUTION_TODO}", "code": "TODO"}}',
        '        return {"success": True, "resources": [',
        *resources,
        "        ]}",
        "    except ClientError as e:",
        '        return {"error": str(e), "code": e.response["Error"]["Code"]}',
        "",
    ]
    return "\n".join(lines)


def scenario_file(step: StepSpec) -> str:
    """The scenario file: one mistake to fill in (the step's solution solves it)."""
    return textwrap.dedent(f'''\
        """Step {step.key}: the mistakes learners make (solution/boto3/{step.stem}.py solves it)."""

        from harness.authoring.scenarios import mistake


        @mistake(issue=r"(?i){ISSUE_TODO}")
        def common_mistake(aws, handles):
            raise NotImplementedError("the solution with one thing a learner often gets wrong")
        ''')
