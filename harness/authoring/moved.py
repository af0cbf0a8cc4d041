"""Public names that moved: the old module still answers them, with a `DeprecationWarning` naming the new home.

The deprecation policy (docs/user.md, "The public API"): a moved or renamed public name keeps working for at least
one release after the one that moved it.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path
from typing import Any

from harness.kit import renamed

# every public name each old module had in 0.1.0 -> its home now (module, name)
MOVED_NAMES: dict[str, dict[str, tuple[str, str]]] = {
    "harness.recorder": {
        name: ("harness.authoring.events", name)
        for name in (
            "IdGetter",
            "PARAMS_KEY",
            "from_params",
            "from_response",
            "ELBV2",
            "RULES",
            "EventRecorder",
            "event_for",
            "aws_form",
            "rule_for",
            "from_identifier",
        )
    }
    | {"Rule": ("harness.authoring.events", "EventRule")},
    "harness.scenarios": {
        name: ("harness.authoring.scenarios", name)
        for name in (
            "Action",
            "EventEdit",
            "EventOrder",
            "SCENARIO_ATTRIBUTE",
            "EQUIVALENT_ATTRIBUTE",
            "Scenario",
            "solve",
            "mistake",
            "Equivalent",
            "equivalent",
            "equivalents",
        )
    },
}


DEPRECATED_NAMES: dict[str, dict[str, tuple[str, str]]] = MOVED_NAMES | {
    module: {old: (module, new) for old, new in names.items()} for module, names in renamed.RENAMED.items()
}
"""Every deprecated public name, from one registry: the moved modules' names above and the renamed kit names
(harness/kit/renamed.py); module -> {old name: its home now (module, name)}. What `stepeval check`, `lint`,
`test` and `run` look for (harness/authoring/deprecated_uses.py) and what docs/user.md's "Moved" table lists."""


def moved_warning(module: str, name: str) -> str:
    """What a use of the deprecated `module.name` is told, at run time and by `stepeval lint` alike."""
    home, new_name = DEPRECATED_NAMES[module][name]
    return renamed.deprecation(f"{module}.{name}", f"{home}.{new_name}")


def moved_name(module: str, name: str) -> Any:
    """`module.name`, now at its home in MOVED_NAMES: the value, after the warning; an unknown name raises
    AttributeError as any module would (so `hasattr` and `from module import *` behave)."""
    if name not in MOVED_NAMES[module]:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    home, new_name = MOVED_NAMES[module][name]
    warnings.warn(moved_warning(module, name), DeprecationWarning, stacklevel=3)
    return getattr(importlib.import_module(home), new_name)


def say_deprecated(path: str | Path, line: int, message: str) -> None:
    """One line on stderr for a moved name a lab file uses, once per process per file, line and name (the runtime
    warning and the static read of the same use say the same line once)."""
    shown = Path(path).absolute()
    shown = shown.relative_to(Path.cwd()) if shown.is_relative_to(Path.cwd()) else shown
    said = f"stepeval: {shown}:{line}: {message}"
    if said not in _SAID:
        _SAID.add(said)
        print(said, file=sys.stderr, flush=True)


_SAID: set[str] = set()
