"""Numbers a lab bounds rather than fixes: `at_most(5)`, `at_least(2)`, `between(1, 10)`.

A bound compares equal to every number it admits, so any kit requirement that compares a number by equality
takes one in its place: `sqs.dead_letter_queue(dlq, max_receives=at_most(5))`,
`sqs.visibility_timeout(at_least(60))`; a miss reads "should be at most 5, but is 7".
"""

from __future__ import annotations

import math
from typing import Any


class Bound:
    """The numbers from `low` to `high`, both included (None: no bound on that side)."""

    __slots__ = ("high", "low")

    def __init__(self, low: float | None = None, high: float | None = None) -> None:
        for side in (low, high):
            if side is not None and (isinstance(side, bool) or not isinstance(side, int | float) or math.isnan(side)):
                raise TypeError(f"a bound is a number, not {side!r}")
        if low is None and high is None:
            raise ValueError("a bound needs a low or a high side")
        if low is not None and high is not None and low > high:
            raise ValueError(f"an empty bound: from {low} to {high}")
        self.low, self.high = low, high

    def admits(self, value: Any) -> bool:
        """Whether `value` (a number, or a string AWS gives for one, e.g. `"300"`) is within the bound."""
        number = _number(value)
        if number is None:
            return False
        return (self.low is None or number >= self.low) and (self.high is None or number <= self.high)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Bound):
            return (self.low, self.high) == (other.low, other.high)
        return self.admits(other)

    def __hash__(self) -> int:
        return hash((Bound, self.low, self.high))

    def __str__(self) -> str:
        if self.low is None:
            return f"at most {_show(self.high)}"
        if self.high is None:
            return f"at least {_show(self.low)}"
        return f"from {_show(self.low)} to {_show(self.high)}"

    def __repr__(self) -> str:
        return f"Bound({self})"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return None if isinstance(value, float) and math.isnan(value) else value
    try:
        return float(str(value).strip())
    except ValueError:
        return None


def _show(value: float | None) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def at_most(high: float) -> Bound:
    """Any number up to `high`, included: `max_receives=at_most(5)` admits 1 to 5."""
    return Bound(high=high)


def at_least(low: float) -> Bound:
    """Any number from `low` up, included."""
    return Bound(low=low)


def between(low: float, high: float) -> Bound:
    """Any number from `low` to `high`, both included."""
    return Bound(low, high)
