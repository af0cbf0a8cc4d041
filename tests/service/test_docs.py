"""docs/service.md's complete request against moto runs as written: a platform engineer can paste it."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.process, pytest.mark.moto]

REPO = Path(__file__).resolve().parents[2]
MARKER = "<!-- tested: tests/service/test_docs.py runs the python block below -->"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_complete_request_in_service_md_answers_pass(tmp_path: Path) -> None:
    text = (REPO / "docs" / "service.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", text[text.index(MARKER) :], re.DOTALL)
    assert block is not None
    script = block.group(1)
    assert "{...}" not in script and "whsec_..." not in script  # nothing to fill in
    (tmp_path / "try_service.py").write_text(script, encoding="utf-8")
    env = {**os.environ, "MOTO_PORT": str(free_port()), "SERVICE_PORT": str(free_port())}
    done = subprocess.run(
        [sys.executable, tmp_path / "try_service.py"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "pass - All 1 check passed.", done.stdout
