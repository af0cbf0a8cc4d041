"""What a step's tally counts ("1 of 2 checks passed", the answer's `progress`): the checks on the step's own work.

The kit's message and the harness's `progress` both count through `tallied`, so the two never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TypeVar

C = TypeVar("C")


def tallied(checks: Sequence[C], handle: Callable[[C], str | None], inputs: Collection[str]) -> list[C]:
    """The checks a tally counts: those not on one of the step's `inputs` (an earlier step's resource re-verified is
    no progress in this one: a learner who built nothing in it has passed nothing in it); every check for a step
    that only re-verifies inputs."""
    own = [check for check in checks if handle(check) not in inputs]
    return own or list(checks)
