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


RENAMED: dict[str, dict[str, str]] = {
    "harness.kit.grants": {"Finding": "PolicyFinding"},  # 0.2.0: kit.outputs.Finding is another idea
    "harness.kit.identity": {"Verdict": "AccessVerdict"},  # 0.2.0: kit.outputs.Verdict is another idea
}
"""Every renamed kit name: module -> {old name: new name}. The module answers the old name (`old_name`), and
`stepeval check`/`lint` name each use of it (harness/authoring/moved.py reads this registry)."""


def old_name(module: str, name: str, namespace: Mapping[str, Any]) -> Any:
    """For a module's `__getattr__`: the value of the new name of `name` in RENAMED[module], read from the module's
    `namespace`, after the warning; any other name raises AttributeError as a module would (so `hasattr` and
    `from module import *` behave)."""
    new_name = RENAMED.get(module, {}).get(name)
    if new_name is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(deprecation(f"{module}.{name}", f"{module}.{new_name}"), DeprecationWarning, stacklevel=3)
    return namespace[new_name]
