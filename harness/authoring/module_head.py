"""The head of a step module as `stepeval new` writes it (a skeleton, or a draft from the solution)."""

from __future__ import annotations

import textwrap

from harness.core.lab import StepSpec

DRAFT_MARK = "# DRAFT written by `stepeval new"
"""How a drafted module begins until its author has read it and deleted the comment (`stepeval check` says so)."""


def instruction(step: StepSpec) -> str:
    """The step's instruction as a module's docstring holds it (wrapped at 110)."""
    text = step.step.description or step.step.title or f"Step {step.key}."
    return "\n".join(textwrap.wrap(" ".join(text.split()), 110))


def module_head(step: StepSpec, modules: set[str]) -> list[str]:
    """A step module's lines up to its body: the instruction as docstring, the kit imports, `run`, `with step:`."""
    imports = [f"from harness.kit import {', '.join(sorted(modules))}"] if modules else []
    return [
        f'"""{instruction(step)}"""',
        "",
        *imports,
        "from harness.kit.step import Step",
        "",
        "",
        "async def run(session, context, logger):",
        "    step = Step(session, context, logger)",
        "    with step:",
    ]
