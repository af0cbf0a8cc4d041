"""Values known only once a step's outputs are matched, and requirements built from them.

`step.output(name)` (and what `find` returns) stands for an output whose resource the step has not chosen yet. A
kit function given one (`ec2.in_vpc(vpc)`, `net.tcp(5432, app)`) does not read it at once: `@later` makes the
call `Deferred`, and it is made again with the candidate the matching is trying whenever it is needed. That is
how one output's requirements can refer to another's resource and the step still chooses both together.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from botocore.exceptions import BotoCoreError, ClientError

from harness.kit.require import Misapplied, Requirement, missing_requirement, no_resource
from harness.kit.stops import Absent

F = TypeVar("F", bound=Callable[..., Any])


class Later:
    """A value that is known only when the step's outputs are matched."""

    def settle(self) -> Any:
        """The value now: for an output, the candidate the matching is trying, or the resource it chose."""
        raise NotImplementedError

    def absent(self) -> list[str]:
        """The outputs this value refers to that have no resource now, as the learner knows them (`the SQS queue
        this step asks for`), for a miss's sentence."""
        return []


def absent_in(value: Any) -> list[str]:
    """The outputs with no resource now that the Laters in `value` refer to, as the learner knows them (lists,
    tuples, sets, dicts walked)."""
    if isinstance(value, Later):
        return value.absent()
    if isinstance(value, list | tuple | set | frozenset):
        return [name for item in value for name in absent_in(item)]
    if isinstance(value, dict):
        return [name for item in value.values() for name in absent_in(item)]
    return []


def holds_later(value: Any) -> bool:
    """Whether `value` is a Later, or a list, tuple, set or dict holding one."""
    if isinstance(value, Later):
        return True
    if isinstance(value, list | tuple | set | frozenset):
        return any(holds_later(item) for item in value)
    if isinstance(value, dict):
        return any(holds_later(item) for item in value.values())
    return False


def settled(value: Any) -> Any:
    """`value` with every Later in it replaced by its value now (lists, tuples, sets and dicts are walked)."""
    if isinstance(value, Later):
        return value.settle()
    if isinstance(value, list | tuple | set | frozenset) and holds_later(value):
        return type(value)(settled(item) for item in value)
    if isinstance(value, dict) and holds_later(value):
        return {key: settled(item) for key, item in value.items()}
    return value


class Deferred(Later):
    """A call whose arguments refer to outputs not matched yet: made with their values each time it is needed.

    A deferred requirement evaluates like any other (`evaluate(resource)`), built anew for the candidates tried.
    """

    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.function, self.args, self.kwargs = function, args, kwargs

    def settle(self) -> Any:
        return self.function(*settled(self.args), **settled(self.kwargs))

    def absent(self) -> list[str]:
        return list(dict.fromkeys(absent_in((self.args, self.kwargs))))

    def evaluate(self, resource: Any, subject: str = "the resource") -> Any:
        """The requirement built for the outputs' values now, evaluated on `resource` (an Outcome); a miss naming
        the outputs it refers to that have no resource, never a comparison with nothing."""
        absent = self.absent()
        try:
            requirement = self.settle()
        except (BotoCoreError, ClientError):
            raise  # an AWS refusal or failure is the step's error as it is
        except Absent as missing:  # the function read an output with no resource
            absent = absent or [missing.label]
            requirement = Requirement(_words(self.function), None, lambda _: None)
        except Exception as error:
            if absent:
                requirement = Requirement(_words(self.function), None, lambda _: None)
            else:
                raise Misapplied(self._stand_in(), error, subject) from error
        if absent:
            requirement = missing_requirement(requirement, no_resource(" or ".join(absent)))
        return requirement.evaluate(resource, subject)

    def _stand_in(self) -> Requirement:
        """A requirement standing for this call in an author's error (its function's name and module)."""
        module = getattr(self.function, "__module__", "").removeprefix("harness.kit.")
        name = getattr(self.function, "__name__", "requirement")
        return Requirement(_words(self.function), None, lambda _: None, origin=f"{module}.{name}")

    def __repr__(self) -> str:
        return f"Deferred({getattr(self.function, '__qualname__', self.function)})"


def later(function: F) -> F:
    """Let `function` take outputs not matched yet: called with one (anywhere in its arguments), it returns a
    Deferred call instead of reading it now; called without, it runs as it is."""

    signature = inspect.signature(function)

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        if holds_later(args) or holds_later(kwargs):
            return Deferred(function, args, kwargs)
        made = function(*args, **kwargs)
        nothing = _given_nothing(signature, args, kwargs)
        if nothing and isinstance(made, Requirement):
            return missing_requirement(made, f"no {nothing} it refers to was found")
        return made

    return call  # type: ignore[return-value]


def _given_nothing(signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """The first parameter without a default that was given None (a reference read off an output with no
    resource, `dlq.get("QueueArn")`), in words; None when every one was given something."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return None
    for name, value in bound.arguments.items():
        parameter = signature.parameters[name]
        required = parameter.default is inspect.Parameter.empty or parameter.kind is inspect.Parameter.VAR_POSITIONAL
        listed = value if parameter.kind is inspect.Parameter.VAR_POSITIONAL else (value,)
        if required and any(_nothing(item) for item in listed):
            return name.replace("_", " ")
    return None


def _nothing(value: Any) -> bool:
    """None, or a list, tuple or set holding None: a reference read off an output with no resource."""
    if isinstance(value, list | tuple | set | frozenset):
        return any(item is None for item in value)
    return value is None


def _words(function: Callable[..., Any]) -> str:
    return getattr(function, "__name__", "requirement").replace("_", " ")
