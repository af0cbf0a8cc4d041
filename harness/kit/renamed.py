"""Kit names that were renamed: the old name still answers, with a `DeprecationWarning` naming the new one.

The deprecation policy (docs/user.md, "The public API"): a renamed public name keeps working for at least one
release after the one that renamed it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any


def deprecation(old: str, new: str) -> str:
    """What a use of the old dotted name `old`, now `new`, is told (at run time, and by `stepeval lint`)."""
    return f"{old} is deprecated: use {new} (the old name goes in a later release: docs/user.md, 'The public API')"


def old_name(module: str, name: str, renamed: Mapping[str, tuple[str, Any]]) -> Any:
    """For a module's `__getattr__`: `renamed[name]` (its new name and value) after the warning; any other name
    raises AttributeError as a module would (so `hasattr` and `from module import *` behave)."""
    if name not in renamed:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    new_name, value = renamed[name]
    warnings.warn(deprecation(f"{module}.{name}", f"{module}.{new_name}"), DeprecationWarning, stacklevel=3)
    return value
