"""Build-time only (the project itself is declared in pyproject.toml): the sample labs `stepeval demo` plays go into
the wheel as harness/samples/<lab>/, so that an installed stepeval (not editable) runs the demo. A source checkout's
demo reads them where they are (harness/commands/demo.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SAMPLES = {  # harness/samples/<name>: (the lab directory in this checkout, what of it the demo needs)
    "web-tier": (".", ("specs", "evaluation", "scenarios", "solution")),
    "serverless-api": ("labs/serverless-api", ("specs", "evaluation", "scenarios", "solution")),
    "rogue": ("tests/labs/misbehaving", ("specs", "evaluation/boto3/01_01.py")),
}


class BuildWithSamples(build_py):
    """build_py, then the sample labs copied beside the package (sources only: no caches)."""

    def run(self) -> None:
        super().run()
        for name, (lab, parts) in SAMPLES.items():
            for part in parts:
                source, target = ROOT / lab / part, Path(self.build_lib) / "harness" / "samples" / name / part
                target.parent.mkdir(parents=True, exist_ok=True)
                if source.is_dir():
                    shutil.copytree(source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
                else:
                    shutil.copy2(source, target)


setup(cmdclass={"build_py": BuildWithSamples})
