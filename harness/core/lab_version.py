"""A lab's version: the hash of the files an evaluation of it reads (its spec and its `evaluation/` modules).

Two evaluations with one version ran the same code; the service names it in every answer and serves each version
from a copy of exactly the bytes that were hashed (harness/service/catalog.py), so an author's edit on disk never
changes a version already served.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from harness.core.errors import BadInput
from harness.core.lab import Lab

SERVED_DIRS = ("specs", "evaluation")  # what evaluating a lab reads of its directory
SKIPPED = ("__pycache__",)
VERSION_CHARS = 16


def lab_files(lab_dir: Path) -> dict[str, bytes]:
    """The files under the lab's `specs/` and `evaluation/`, by path relative to the lab, read once each."""
    files: dict[str, bytes] = {}
    root = lab_dir.resolve()
    for name in SERVED_DIRS:
        base = lab_dir / name
        for path in sorted(base.rglob("*")) if base.is_dir() else []:
            relative = path.relative_to(lab_dir)
            if path.is_file() and not any(part in SKIPPED for part in relative.parts) and path.suffix != ".pyc":
                files[relative.as_posix()] = read_inside(root, path)
    return files


def read_inside(root: Path, path: Path) -> bytes:
    """The bytes of a lab's file; BadInput for one that is a link leading outside the lab's directory: the service
    copies a lab's files where every evaluation reads them, and would copy whatever it can read itself (its own
    environment under /proc, a credentials file)."""
    target = path.resolve()
    if not target.is_relative_to(root):
        raise BadInput(f"{path}: a link to {target}, outside the lab's directory {root}: copy the file into the lab")
    return target.read_bytes()


def version_of(files: dict[str, bytes]) -> str:
    """The hash of a lab's files (their paths and contents, in path order)."""
    digest = hashlib.sha256()
    for relative in sorted(files):
        digest.update(relative.encode() + b"\0" + hashlib.sha256(files[relative]).digest())
    return digest.hexdigest()[:VERSION_CHARS]


def lab_version(lab: Lab) -> str:
    """The version of `lab` as its directory holds it now."""
    return version_of(lab_files(lab.root))
