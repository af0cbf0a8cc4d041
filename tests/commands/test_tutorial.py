"""The serverless tutorial in docs/user.md works copy-pasted into an empty directory (its sh blocks, in order)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import STEPEVAL

pytestmark = [pytest.mark.process, pytest.mark.moto]

USER_DOC = Path(__file__).parents[2] / "docs" / "user.md"


def tutorial_script() -> str:
    text = USER_DOC.read_text(encoding="utf-8")
    section = text[text.index("## Tutorial: a serverless lab") :]
    section = section[: section.index("\n## ", 1)]
    return "\n".join(re.findall(r"```sh\n(.*?)```", section, re.S))


def test_the_serverless_tutorial_runs_from_an_empty_directory(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(STEPEVAL).parent}{os.pathsep}{os.environ['PATH']}", "COLUMNS": "200"}
    done = subprocess.run(
        ["bash", "-c", tutorial_script()], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    said = done.stdout + done.stderr
    assert "3 steps, 3 modules: all good" in said
    assert "16 scenarios in 3 steps, all as expected" in said
    assert (tmp_path / "serverless-lab" / "evaluation" / "boto3" / "01_03.py").is_file()
