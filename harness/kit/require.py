"""Requirements: one named expectation about a resource, evaluated into a recorded check.

A requirement says what it checks, what it expects, how to read the actual value off the resource, and how
to compare the two. Validators (ec2, elbv2, s3) build them; `Step.find` evaluates them against candidates.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.kit.kinds import Resource


@dataclass(frozen=True)
class Outcome:
    """A requirement evaluated on one resource."""

    requirement: Requirement
    ok: bool
    actual: Any

    def issue(self, subject: str) -> str:
        """The learner-facing sentence for a miss: subject, what was checked, expected and found."""
        subject = subject[:1].upper() + subject[1:]
        if self.requirement.explain is not None:
            return f"{subject}: {self.requirement.explain(self.actual)}"
        expected, actual = _show(self.requirement.expected), _show(self.actual)
        return f"{subject}: {self.requirement.check} should be {expected}, but is {actual}."

    @property
    def hint(self) -> str | None:
        """The requirement's hint, worded for the actual value when it is a function of it."""
        hint = self.requirement.hint
        return hint(self.actual) if callable(hint) else hint


@dataclass(frozen=True)
class Requirement:
    """`check` (e.g. "CIDR block") should compare equal (or by `compare(actual, expected)`) to `expected` on
    `actual(resource)`.

    `waits` says when a miss is "not yet" rather than wrong: True for a requirement on a resource's readiness (a
    miss while its Kind says it is settling is `pending`), or a function of the resource (e.g. a change AWS is
    still applying)."""

    check: str
    expected: Any
    actual: Callable[[Resource], Any]
    compare: Callable[[Any, Any], bool] = field(default=operator.eq)
    hint: str | Callable[[Any], str] | None = None
    explain: Callable[[Any], str] | None = None
    waits: bool | Callable[[Resource], bool] = False

    def evaluate(self, resource: Resource) -> Outcome:
        actual = self.actual(resource)
        return Outcome(self, bool(self.compare(actual, self.expected)), actual)


def require(
    check: str,
    expected: Any,
    actual: Callable[[Resource], Any],
    *,
    compare: Callable[[Any, Any], bool] = operator.eq,
    hint: str | Callable[[Any], str] | None = None,
    explain: Callable[[Any], str] | None = None,
    waits: bool | Callable[[Resource], bool] = False,
) -> Requirement:
    """A requirement of your own, e.g. `require("instance type", "t3.micro", lambda i: i["InstanceType"])`.

    The arguments come in the order a sentence gives them: what is checked, the value expected, how to read the
    actual value off the resource. `compare` is then called as `compare(actual, expected)` (the value read
    first, the expected one second; equality by default) and returns whether the requirement holds.
    `explain(actual)` words a miss when the default "CHECK should be EXPECTED, but is ACTUAL." does not read
    well; `hint` may be a function of the actual value; `waits` (see Requirement) makes a miss "not yet".
    """
    return Requirement(check, expected, actual, compare, hint, explain, waits)


def includes(
    check: str,
    expected: Any,
    actual: Callable[[Resource], Any],
    *,
    hint: str | None = None,
    explain: Callable[[Any], str] | None = None,
) -> Requirement:
    """`expected` is among what `actual(resource)` lists, e.g. a topic among an alarm's actions."""
    return Requirement(check, expected, actual, _contains, hint, explain)


def _contains(actual: Any, expected: Any) -> bool:
    return actual is not None and expected in actual


def attribute(check: str, key: str, expected: Any, *, hint: str | None = None) -> Requirement:
    """`resource[key] == expected`, the most common requirement."""
    return Requirement(check, expected, lambda resource: resource.get(key), hint=hint)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "enabled" if value else "disabled"
    if value is None or value == [] or value == ():
        return "none"
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(str(v) for v in sorted(value, key=str))
    return str(value)
