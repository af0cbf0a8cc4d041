"""Draft a step's evaluation from its reference solution (`stepeval new STEP --from-solution`).

The solution is played on the emulator; each output is described with the kit's Kind for its type, and the
draft requires what the solution chose: each kit requirement that holds for the solution's resource and not for
a baseline (drafts.baselines), every reference to an input or another output, nothing about names or tags. An
input the step's calls changed (a role given a policy) is judged against itself before the step.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from harness.authoring.drafts.baselines import Baselines, baselines, changed_inputs, chosen_values, described
from harness.authoring.drafts.probes import Candidate, candidates
from harness.authoring.drafts.refs import Refs, literal
from harness.authoring.module_head import DRAFT_MARK, module_head
from harness.authoring.solution_player import SolutionPlay, solution_played
from harness.core.errors import BadInput
from harness.core.lab import STRING, Lab, StepSpec
from harness.kit import catalog

HEADER = (
    DRAFT_MARK
    + """ {key} --from-solution` from solution/boto3/{stem}.py: it requires what that
# solution chose. Prune what the instruction does not ask, add what it asks and the solution did not show, and
# read every line: a draft is a start, never shipped unread. Then delete this comment.
"""
)


@dataclass(frozen=True)
class DraftedHandle:
    """One handle the draft finds: its kind and the kit calls it keeps."""

    name: str
    type: str
    kept: tuple[Candidate, ...]


@dataclass(frozen=True)
class FoundValue:
    """A "string" output as the module reads it (`code`), what it requires of it, and the variables it reads."""

    code: str
    requirements: tuple[str, ...]
    comment: str
    refs: frozenset[str]


def variable(name: str) -> str:
    """`02_02_public_subnet_a` -> `public_subnet_a`, the name a module gives the handle's resource."""
    return name.split("_", 2)[-1]


def draft(lab: Lab, key: str, region: str | None = None) -> str:
    """The drafted module for step `key`; BadInput when an output's type has no kit Kind (LabError, SolutionError
    from playing the solutions)."""
    with _quiet():
        return _draft(lab, lab.step(key), region)


def _draft(lab: Lab, step: StepSpec, region: str | None) -> str:
    """Play the solution, judge what it made (and the inputs it changed), and render the module."""
    kinds = {**step.input_types, **step.output_types}
    _require_kinds(step)
    with solution_played(lab, step.key, region=region) as play:
        refs = Refs()
        inputs = {h.name: h.id for h in play.resolved if h.name in step.step.inputs}
        _refer_to_inputs(refs, play.session, inputs, kinds)
        outputs = {h.name: h.id for h in play.resources if kinds.get(h.name) != STRING}
        values = {h.name: h.id for h in play.resources if kinds.get(h.name) == STRING}
        judged = _judge_outputs(play, refs, outputs, kinds)
        touched = [n for n in changed_inputs(play.calls, inputs) if _kind(kinds[n])]
        after = {
            n: (refs.described[variable(n)], baselines(play.session, _kind(kinds[n]), play.calls, inputs[n]))
            for n in touched
        }
    changed = _before(lab, step, touched, inputs, region) if touched else {}
    judged += _judge_changed_inputs(after, changed, judged, refs, kinds)
    found_values = {name: _value_of(value, refs) for name, value in values.items()}
    return render(step, inputs, _ordered(judged), kinds, found_values)


def _require_kinds(step: StepSpec) -> None:
    """BadInput when an output's type has no kit Kind (a draft could not describe it)."""
    missing = sorted({t for t in step.output_types.values() if t != STRING and catalog.kind_for(t) is None})
    if missing:
        raise BadInput(f"step {step.key}: no kit Kind for {', '.join(missing)}: draft it with `stepeval new` instead")


def _refer_to_inputs(refs: Refs, session: Any, inputs: dict[str, str], kinds: dict[str, str]) -> None:
    """The step's inputs, described where the kit knows their kind, as what the draft may refer to."""
    for name, resource_id in inputs.items():
        kind = _kind(kinds[name])
        found = described(kind, session, resource_id) if kind else None
        refs.add(variable(name), resource_id, found or {}, plain=kind is None)


def _judge_outputs(
    play: SolutionPlay, refs: Refs, outputs: dict[str, str], kinds: dict[str, str]
) -> list[DraftedHandle]:
    """Each output the solution made, with the kit calls that hold for it and set it apart from a baseline (or
    refer to another handle, or name a value the solution chose)."""
    solved = {n: described(_kind(kinds[n]), play.session, i) or {} for n, i in outputs.items()}
    for name, resource_id in outputs.items():
        refs.add(variable(name), resource_id, solved[name], optional=True)
    judged = []
    for name, resource_id in outputs.items():
        kind = _kind(kinds[name])
        offered = candidates(kind.type, solved[name], refs.without(variable(name)))
        against = baselines(play.session, kind, play.calls, resource_id)
        chosen = chosen_values(play.session, play.calls, resource_id)
        kept = [c for c in offered if c.refs or c.values & chosen or against.set_apart(c)]
        judged.append(DraftedHandle(name, kind.type, tuple(kept)))
    return judged


def _judge_changed_inputs(
    after: dict[str, tuple[dict[str, Any], Baselines]],
    changed: dict[str, dict[str, Any]],
    judged: list[DraftedHandle],
    refs: Refs,
    kinds: dict[str, str],
) -> list[DraftedHandle]:
    """The inputs the step's calls changed, judged against themselves before the step: what the step added to them
    (an output that is the input itself checks it already)."""
    shown = {c.text for j in judged for c in j.kept}
    more = []
    for name, (state, against) in after.items():
        offered = candidates(kinds[name], state, refs.without(variable(name)))
        before = Baselines((*against.made, changed.get(name) or {}), against.twins)
        kept = [c for c in offered if c.text not in shown and before.set_apart(c)]
        if kept:
            more.append(DraftedHandle(name, kinds[name], tuple(kept)))
    return more


def _value_of(value: str, refs: Refs) -> FoundValue:
    """A "string" output: how the module reads it off the resources it holds, and what it requires of it."""
    code = refs.value(value)
    if value.startswith("arn:"):
        requirement = f"values.is_arn({literal(value.split(':')[2]).text})"
    elif value.startswith(("https://", "http://")):
        requirement = f"values.is_url({literal(value.split(':')[0]).text})"
    else:
        requirement = ""
    comment = "" if code.refs else "  # TODO: read the learner's value, not the solution's"
    return FoundValue(code.text, (requirement,) if requirement else (), comment, code.refs)


@contextmanager
def _quiet() -> Iterator[None]:
    """File descriptor 2 to nowhere while the emulator runs: moto's processes (which inherit it) print a traceback
    for each baseline call they refuse, which is an expected answer here, not news for the author."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as nowhere:
        os.dup2(nowhere.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _kind(resource_type: str) -> Any:
    return catalog.kind_for(resource_type)


def _before(lab: Lab, step: StepSpec, names: list[str], inputs: dict[str, str], region: str | None) -> dict:
    """The inputs `names` as the step before this one left them."""
    order = list(lab.steps)
    earlier = order[order.index(step.key) - 1]
    with solution_played(lab, earlier, region=region) as play:
        return {n: described(_kind(step.input_types[n]), play.session, inputs[n]) or {} for n in names}


def _ordered(judged: list[DraftedHandle]) -> list[DraftedHandle]:
    """Handles in an order where each one's references come before it (a cycle's back-references dropped)."""
    by_variable = {variable(j.name): j for j in judged}
    done: set[str] = set()
    ordered: list[DraftedHandle] = []
    pending = list(judged)
    while pending:
        ready = next((j for j in pending if _needs(j, by_variable) <= done), None)
        if ready is None:
            first = pending[0]
            ready = DraftedHandle(
                first.name, first.type, tuple(c for c in first.kept if _needs_one(c, by_variable) <= done)
            )
            pending[0] = ready
        pending.remove(ready)
        ordered.append(ready)
        done.add(variable(ready.name))
    return ordered


def _needs(judged: DraftedHandle, by_variable: dict[str, DraftedHandle]) -> set[str]:
    return set().union(*(_needs_one(c, by_variable) for c in judged.kept)) - {variable(judged.name)}


def _needs_one(candidate: Candidate, by_variable: dict[str, DraftedHandle]) -> set[str]:
    return {r for r in candidate.refs if r in by_variable}


def render(
    step: StepSpec,
    inputs: dict[str, str],
    judged: list[DraftedHandle],
    kinds: dict[str, str],
    values: dict[str, FoundValue],
) -> str:
    """The module: the header, the instruction as docstring, inputs re-verified, each handle found with what it
    keeps (several outputs of one kind that refer to none of the others matched together)."""
    used = {m for t in kinds.values() if (found := catalog.reference(t)) for m in found[:1]}
    used |= {m for j in judged for c in j.kept for m in c.modules} | ({"values"} if values else set())
    referenced = {r for j in judged for c in j.kept for r in c.refs} | {r for v in values.values() for r in v.refs}
    lines = [HEADER.format(key=step.key, stem=step.stem), *module_head(step, used)]
    for name in inputs:
        bound = f"{variable(name)} = " if variable(name) in referenced else ""
        if kinds[name] == STRING:
            lines.append(f'        {bound}step.input_value("{name}")')
        elif catalog.kind_for(kinds[name]) is not None:
            lines.append(f'        {bound}step.input("{name}", {_code_of(kinds[name])})')
        elif bound:  # no kit Kind for the type: its id only
            lines.append(f'        {bound}next(h["id"] for h in context["resolved"] if h["name"] == "{name}")')
    for group in _groups(judged, referenced):
        lines += _find(group, referenced, inputs)
    for name, value in values.items():
        requirements = ", ".join(value.requirements)
        lines.append(f'        step.value("{name}", {value.code}, [{requirements}]){value.comment}')
    lines += ["    return step.result()", ""]
    return "\n".join(lines)


def _code_of(resource_type: str) -> str:
    module, name = catalog.reference(resource_type) or ("", "")
    return f"{module}.{name}"


def _groups(judged: list[DraftedHandle], referenced: set[str]) -> list[list[DraftedHandle]]:
    """Consecutive handles of one kind that no other handle refers to: matched together by `find_all`."""
    groups: list[list[DraftedHandle]] = []
    for item in judged:
        last = groups[-1] if groups else None
        joinable = variable(item.name) not in referenced and not any(
            r in {variable(j.name) for j in last or []} for c in item.kept for r in c.refs
        )
        if last and last[0].type == item.type and joinable and variable(last[0].name) not in referenced:
            last.append(item)
        else:
            groups.append([item])
    return groups


def _requirements(kept: tuple[Candidate, ...], indent: int) -> list[str]:
    return [line for c in kept for line in c.lines(indent)]


def _find(group: list[DraftedHandle], referenced: set[str], inputs: dict[str, str]) -> list[str]:
    kind = _code_of(group[0].type)
    if len(group) == 1:
        (item,) = group
        bound = f"{variable(item.name)} = " if variable(item.name) in referenced and item.name not in inputs else ""
        if not item.kept:
            note = "  # TODO: what sets it apart (the solution left it as AWS makes it)" if bound else ""
            return [f'        {bound}step.find("{item.name}", {kind}, []){note}']
        return [
            f'        {bound}step.find("{item.name}", {kind}, [',
            *_requirements(item.kept, 12),
            "        ])  # fmt: skip",
        ]
    lines = [f"        step.find_all({kind}, {{"]
    for item in group:
        lines += [f'            "{item.name}": [', *_requirements(item.kept, 16), "            ],"]
    return [*lines, "        })  # fmt: skip"]
