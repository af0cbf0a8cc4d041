"""What `stepeval test` starts before its heavy imports and before it reads the lab: the worker pool's template and
moto's root process, which import boto3 and moto while this process imports pydantic and loads the spec.

Light on purpose (no pydantic, no boto3): the command line imports it first. moto's root starts early only when
the spec asks nothing of the emulator (no `emulator:` key), since what it asks becomes the root's environment;
otherwise the lanes start it once the lab is loaded, as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from harness.authoring.emulator import Emulator
from harness.core.paths import MODULE_DIR, lab_modules, services_named_in
from harness.sandbox.pool import WorkerPool, playthrough_pool

LANES = 2
"""Seats played on at once (2 cores here); the pool evaluates as many at once."""
SCENARIO_DIR = "scenarios"
SOLUTION_DIR = Path("solution") / "boto3"  # a lab's reference solutions (harness.authoring.solutions)
SOLUTION_STEM = re.compile(r"(?P<key>[0-9]{2}_[0-9]{2})(?:_(?P<variant>\w+))?")  # 01_02.py, 01_02_cli.py
EMULATOR_KEY = re.compile(r"^emulator\s*:", re.MULTILINE)


def services_named(root: Path) -> set[str]:
    """The AWS services a lab's step modules, solutions and scenarios name (`client("ec2")`), for
    `Emulator(services=)`."""
    sources = [
        *(root / MODULE_DIR).glob("*.py"),
        *(root / SOLUTION_DIR).glob("*.py"),
        *(root / SCENARIO_DIR).glob("*.py"),
    ]
    return services_named_in(sources)


def solution_paths(root: Path) -> list[Path]:
    """The reference solution files of the lab in `root`, in name order."""
    directory = root / SOLUTION_DIR
    return sorted(directory.glob("[!_]*.py")) if directory.is_dir() else []


@dataclass
class Prestarted:
    """A started pool of `LANES` and, when the spec allows, moto's root on its way up; closes both on exit."""

    pool: WorkerPool
    emulator: Emulator | None

    def __enter__(self) -> Prestarted:
        return self

    def __exit__(self, *_: object) -> None:
        if self.emulator is not None:
            self.emulator.__exit__(None, None, None)
        self.pool.close()


def prestart(lab_dir: Path, region: str | None = None) -> Prestarted:
    """Start the pool's template, and moto's root (its accounts in `region`, by default us-east-1) if the spec in
    `lab_dir/specs/` has no `emulator:` key."""
    pool = playthrough_pool(LANES)
    pool.expect([lab_modules(lab_dir)])  # its spares hold the lab's modules in their root
    pool.start()
    emulator = None
    if _asks_nothing_of_the_emulator(lab_dir):
        emulator = Emulator(LANES, services=services_named(lab_dir.resolve()), region=region)
        emulator.start()
    return Prestarted(pool, emulator)


def _asks_nothing_of_the_emulator(lab_dir: Path) -> bool:
    """Whether the lab's one spec file can be read and has no top-level `emulator:` key (a guess on the text: when
    in doubt, no; loading the lab reports what is wrong with it)."""
    try:
        specs = [p for p in (lab_dir / "specs").iterdir() if p.suffix in (".yaml", ".yml") and p.is_file()]
        return len(specs) == 1 and not EMULATOR_KEY.search(specs[0].read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return False
