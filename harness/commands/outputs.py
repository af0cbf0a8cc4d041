"""Files a command will write (`report -o`, `--html`), checked when the command line is read: a path that cannot
be written is bad input said in one line before anything is played, not a traceback after the whole play."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def output_file(text: str) -> Path:
    """An argparse type: `text` as a Path, if a file can be written there (missing directories are made then)."""
    path = Path(text)
    why = unwritable(path)
    if why is not None:
        raise argparse.ArgumentTypeError(f"cannot write {text}: {why}")
    return path


def unwritable(path: Path) -> str | None:
    """Why `path` cannot be written (made with its missing parent directories), or None when it can."""
    if path.is_dir():
        return "it is a directory"
    if path.exists():
        return None if os.access(path, os.W_OK) else "permission denied"
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"{ancestor} is not a directory"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"permission denied in {ancestor}"
    return None
