"""Whether the `authoring` extra is installed: moto and its server, on which the authoring commands play a lab.

The service and the Lambda image install stepeval without it; a command that needs it says so in one line
(exit 2) rather than failing in a moto process it starts.
"""

from __future__ import annotations

import importlib.util

from harness.core.errors import BadInput

EXTRA = "authoring"
MODULES = ("moto", "flask", "werkzeug")  # what moto's server imports; pyproject.toml's `authoring` extra holds them
INSTALL = f"pip install 'stepeval[{EXTRA}]'"


def missing_modules() -> list[str]:
    """The modules of the `authoring` extra this interpreter cannot import (none when it is installed)."""
    return [name for name in MODULES if not _importable(name)]


def require_authoring(command: str) -> None:
    """BadInput naming the extra to install when `command` (which plays on moto) cannot run here."""
    missing = missing_modules()
    if missing:
        raise BadInput(f"{command} plays the lab on moto, which is not installed here ({missing[0]}): {INSTALL}")


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a finder refusing it, or a module set to None in sys.modules
        return False
