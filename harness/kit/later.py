"""Values known only once a step's outputs are matched, and requirements built from them.

`step.output(name)` (and what `find` returns) stands for an output whose resource the step has not chosen yet. A
kit function given one (`ec2.in_vpc(vpc)`, `net.tcp(5432, app)`) does not read it at once: `@later` makes the
call `Deferred`, and it is made again with the candidate the matching is trying whenever it is needed. That is
how one output's requirements can refer to another's resource and the step still chooses both together.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Later:
    """A value that is known only when the step's outputs are matched."""

    def settle(self) -> Any:
        """The value now: for an output, the candidate the matching is trying, or the resource it chose."""
        raise NotImplementedError


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

    def evaluate(self, resource: Any, subject: str = "the resource") -> Any:
        """The requirement built for the outputs' values now, evaluated on `resource` (an Outcome)."""
        return self.settle().evaluate(resource, subject)

    def __repr__(self) -> str:
        return f"Deferred({getattr(self.function, '__qualname__', self.function)})"


def later(function: F) -> F:
    """Let `function` take outputs not matched yet: called with one (anywhere in its arguments), it returns a
    Deferred call instead of reading it now; called without, it runs as it is."""

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        if holds_later(args) or holds_later(kwargs):
            return Deferred(function, args, kwargs)
        return function(*args, **kwargs)

    return call  # type: ignore[return-value]
