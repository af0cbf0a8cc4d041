"""Requirements: one named expectation about a resource, evaluated into a recorded check.

A requirement says what it checks, what it expects, how to read the actual value off the resource, and how
to compare the two. Validators (ec2, elbv2, s3) build them; `Step.find` evaluates them against candidates.
"""

from __future__ import annotations

import dataclasses
import operator
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from harness.kit.kinds import Resource
from harness.kit.stops import Absent


@dataclass(frozen=True)
class Outcome:
    """A requirement evaluated on one resource."""

    requirement: Requirement
    ok: bool
    actual: Any

    def issue(self, subject: str) -> str:
        """The learner-facing sentence for a miss: subject, what was checked, expected and found."""
        subject = subject[:1].upper() + subject[1:]
        return _sentence(f"{subject}: {self.words()}")

    def words(self) -> str:
        """A miss without its subject, no full stop: what was checked, expected and found ("billing mode should be
        PAY_PER_REQUEST, but is PROVISIONED"), to list beside another miss of the same resource (an author's
        `explain` may end in a full stop of its own)."""
        if self.requirement.explain is not None:
            return self.requirement.explain(self.actual).rstrip()
        expected, actual = _show(self.requirement.expected), _show(self.actual)
        return f"{self.requirement.check} should be {expected}, but is {actual}"

    @property
    def hint(self) -> str | None:
        """The requirement's hint, worded for the actual value when it is a function of it."""
        hint = self.requirement.hint
        return hint(self.actual) if callable(hint) else hint


LOOKUP_ERRORS = (KeyError, AttributeError, TypeError, IndexError)
"""What reading a resource of another shape raises: most likely a requirement given to the wrong kind."""


class Misapplied(Exception):
    """A requirement raised while judging a resource: the lab author's mistake, never the learner's. Most likely a
    requirement of another kind (`kms.has_alias` on an alias: a KeyError, an AttributeError...), else a
    requirement of the author's own that fails (a ValueError in its `actual` or `compare`). The step answers
    `error`, naming the requirement, the kind judged and the exception."""

    def __init__(self, requirement: Requirement, error: Exception, subject: str = "the resource") -> None:
        made = f"{requirement.origin}(...)" if requirement.origin else "require(...)"
        read = f"{type(error).__name__}: {error}"
        if isinstance(error, LOOKUP_ERRORS):
            advice = "Is it a requirement of another kind? Give it to the find of the kind it is for."
            doing = "reading it"
        else:
            advice = "This is an error in the lab's evaluation, not the learner's mistake."
            doing = "judging it"
        super().__init__(
            f"{made} (check {requirement.check!r}) cannot be judged on {subject}: {doing} raised {read}. {advice}"
        )
        self.requirement = requirement
        self.error = error


class Missing:
    """What a requirement read when an output it refers to has no resource: its miss names the output as the
    learner knows it, never "None" (`dead-letter queue cannot be checked: nothing was found for the second SQS
    queue this step asks for`)."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __str__(self) -> str:
        return self.what

    def __repr__(self) -> str:
        return f"Missing({self.what!r})"


def missing_requirement(requirement: Requirement, what: str) -> Requirement:
    """`requirement` made to miss because `what` (an output, a reference it compares with) is not there: its
    sentence names what is missing (`dead-letter queue cannot be checked: nothing was found for the SQS queue this
    step asks for`)."""
    return dataclasses.replace(
        requirement,
        expected=Missing(what),
        actual=lambda _: Missing(what),
        compare=lambda *_: False,
        explain=lambda _: f"{requirement.check} cannot be checked: {what}",
        waits=False,
    )


def no_resource(output: str) -> str:
    """The words of a miss for an output that has no resource, given as the learner knows it (`the SQS queue this
    step asks for`: never its handle name, which the learner never saw)."""
    return f"nothing was found for {output}"


_PLUMBING = frozenset({"require", "refs", "later", "step", "outputs", "match", "kinds", "aws"})
"""Kit modules that build or judge requirements for others: never the origin of one."""


def _origin() -> str | None:
    """The kit function the module called to make this requirement (`kms.has_alias`): the outermost public
    function of a kit service module on the stack, before the module's own frames."""
    found = None
    frame: FrameType | None = sys._getframe(1)  # the dataclass's __init__, whose globals are this module's
    while frame is not None and frame.f_globals.get("__name__", "").startswith("harness.kit."):
        short, name = frame.f_globals["__name__"].removeprefix("harness.kit."), frame.f_code.co_name
        if short not in _PLUMBING and not name.startswith(("_", "<")):
            found = f"{short}.{name}"
        frame = frame.f_back
    return found


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
    origin: str | None = field(default_factory=_origin, compare=False)
    """The kit function that made it (`kms.has_alias`), for the author-facing error of a misapplied one."""

    def evaluate(self, resource: Resource, subject: str = "the resource") -> Outcome:
        """`actual(resource)` compared with `expected`; Misapplied when the resource lacks what it reads."""
        try:
            actual = self.actual(resource)
            ok = bool(self.compare(actual, self.expected))
        except Absent as absent:  # another output read that has no resource: a miss naming it
            what = no_resource(absent.label)
            return Outcome(missing_requirement(self, what), False, Missing(what))
        except (Misapplied, BotoCoreError, ClientError):
            raise  # an AWS refusal or failure is the step's error as it is, no author's mistake
        except Exception as error:
            raise Misapplied(self, error, subject) from error
        return Outcome(self, ok, actual)


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


def _sentence(text: str) -> str:
    """`text` ending with one full stop (an actual value of its own may end with one: `example.com.`)."""
    text = text.rstrip()
    while text.endswith(".."):
        text = text[:-1]
    return text if text.endswith((".", "?", "!")) else f"{text}."


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "enabled" if value else "disabled"
    if value is None or value == [] or value == ():
        return "none"
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(str(v) for v in sorted(value, key=str))
    return str(value)
