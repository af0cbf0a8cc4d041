"""Public names that moved: the old module still answers them, with a `DeprecationWarning` naming the new home.

The deprecation policy (docs/user.md, "The public API"): a moved or renamed public name keeps working for at least
one release after the one that moved it.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Mapping
from typing import Any


def moved_name(module: str, name: str, moved: Mapping[str, tuple[str, str]]) -> Any:
    """`module.name`, now `moved[name]` (its module and name there): the value, after the warning; an unknown name
    raises AttributeError as any module would (so `hasattr` and `from module import *` behave)."""
    if name not in moved:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    home, new_name = moved[name]
    warnings.warn(
        f"{module}.{name} is deprecated: use {home}.{new_name} (the old name goes in a later release:"
        " docs/user.md, 'The public API')",
        DeprecationWarning,
        stacklevel=3,
    )
    return getattr(importlib.import_module(home), new_name)
