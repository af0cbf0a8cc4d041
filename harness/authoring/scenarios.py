"""Scenarios: how a learner solves a step, and the common mistakes, written next to the lab.

A lab's `scenarios/NN_NN.py` holds, for step NN.NN, one `@solve` function and any number of `@mistake`s.
Each takes `(aws, handles)`: a boto3 Session on an emulated account (every resource it creates is recorded
as an event, the way the platform would report it) and the ids of the handles earlier solves produced.

    @solve
    def create_vpc(aws, handles):
        ec2 = aws.client("ec2")
        vpc_id = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
        ...

    @mistake(issue="DNS hostnames")              # a variant of the solve: expect fail, issue matching the pattern
    def hostnames_off(aws, handles): ...

    @mistake(after_solve=True, issue="no longer exists")   # a change applied after the solve
    def vpc_deleted(aws, handles): ...

    @mistake(expect="pass", events="reversed")   # must still pass with the events in the other order
    def solved_in_reverse(aws, handles): ...

    @mistake(issue="no longer exists", events=lambda events: [{"type": "AWS::EC2::VPC", "id": "vpc-0gone"}, *events])
    def stale_event_first(aws, handles): ...     # events added (or dropped, reordered) explicitly

`stepeval mutate` plays the solve with one call changed at a time; a mutant the evaluator rightly accepts is
marked on the solve, with the reason:

    @equivalent("CreateTargetGroup TargetType", reason="the instruction names no target type")
    @solve
    def internet_facing_alb(aws, handles): ...
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Action = Callable[[Any, dict[str, str]], object]
"""A scenario's action: `(aws, handles)`; a solve may return the handles it resolved (a reference solution does)."""
EventEdit = Callable[[list[dict[str, str]]], list[dict[str, str]]]
EventOrder = Literal["recorded", "reversed"] | EventEdit
"""The events the step is given: as recorded, reversed, or what a function makes of the recorded list."""
SCENARIO_ATTRIBUTE = "_stepeval_scenario"
EQUIVALENT_ATTRIBUTE = "_stepeval_equivalent"


@dataclass(frozen=True)
class Scenario:
    """One way of playing a step, and what its evaluation must answer."""

    name: str
    action: Action
    kind: Literal["solve", "mistake"]
    expect: Literal["pass", "fail"] = "pass"
    issue: str | None = None
    after_solve: bool = False
    events: EventOrder = "recorded"


def solve(action: Action) -> Action:
    """Mark the function that solves the step (expected to pass)."""
    setattr(action, SCENARIO_ATTRIBUTE, Scenario(action.__name__, action, "solve"))
    return action


def mistake(
    *,
    issue: str | None = None,
    expect: Literal["pass", "fail"] = "fail",
    after_solve: bool = False,
    events: EventOrder = "recorded",
) -> Callable[[Action], Action]:
    """Mark a common mistake: by default it must fail with an `issue` matching the pattern (re.search)."""
    if expect == "fail" and issue is None:
        raise ValueError("a mistake expected to fail must say which issue it expects (issue=...)")

    def mark(action: Action) -> Action:
        setattr(
            action, SCENARIO_ATTRIBUTE, Scenario(action.__name__, action, "mistake", expect, issue, after_solve, events)
        )
        return action

    return mark


@dataclass(frozen=True)
class Equivalent:
    """Mutants whose id contains `pattern` (as written, or as a glob with `*` and `?`) are acceptable, for `reason`."""

    pattern: str
    reason: str


def equivalent(pattern: str, *, reason: str) -> Callable[[Action], Action]:
    """Mark the mutants of this solve whose id matches `pattern` as acceptable (the evaluator may pass them)."""
    if not pattern.strip() or not reason.strip():
        raise ValueError("@equivalent needs a mutant id pattern and a reason (reason=...)")

    def mark(action: Action) -> Action:
        marks = (*getattr(action, EQUIVALENT_ATTRIBUTE, ()), Equivalent(pattern, reason))
        setattr(action, EQUIVALENT_ATTRIBUTE, marks)
        return action

    return mark


def equivalents(action: Action) -> tuple[Equivalent, ...]:
    """The `@equivalent` marks on a solve, in the order written."""
    return tuple(getattr(action, EQUIVALENT_ATTRIBUTE, ()))
