"""Deprecated since 0.2.0: the recorder's names live in `harness.authoring.events` (`Rule` is `EventRule` there).

Last release's labs imported them from here; each still works, with a `DeprecationWarning` naming its new home, until
the release after next (docs/user.md, "The public API"). Nothing in stepeval imports this module.
"""

from __future__ import annotations

from typing import Any

from harness.authoring.moved import MOVED_NAMES, moved_name

MOVED = MOVED_NAMES["harness.recorder"]  # every public name this module had in 0.1.0 -> where it is now
__all__ = sorted(MOVED)  # served by __getattr__, each with its warning


def __getattr__(name: str) -> Any:
    return moved_name(__name__, name)
