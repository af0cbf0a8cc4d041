"""Ctrl-C while `stepeval test` or `stepeval demo` plays: one line, exit 130, no thread's traceback, and none of the
processes it started (moto's servers and their copies, the evaluation workers) left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import STEPEVAL
from tests.fixtures.service import sigint_as_a_shell_gives_it

pytestmark = pytest.mark.process

REPO = Path(__file__).resolve().parents[2]
COPIES = 6  # more processes than at the setting-up line: copies of moto's state for the scenarios being played
PLAYING_WAIT_S = 60  # at most, for those copies (on a loaded machine); the interrupt is sent then anyway


def processes() -> dict[tuple[int, int], int]:
    """Every live process now, (pid, start time) to its parent's pid: a pid reused later is another process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()  # after the name, which may hold spaces
        except OSError:  # ended meanwhile
            continue
        if fields[0] != "Z":
            found[(int(entry.name), int(fields[19]))] = int(fields[1])
    return found


def descendants(pid: int) -> set[tuple[int, int]]:
    """The live processes started by `pid`, and by them, now (whatever session they moved to)."""
    table = processes()
    found: set[tuple[int, int]] = set()
    parents = {pid}
    while True:
        more = {key for key, parent in table.items() if parent in parents and key not in found}
        if not more:
            return found
        found |= more
        parents = {key[0] for key in more}


@pytest.fixture
def sigint_ignored_here() -> Iterator[None]:
    """This process ignores SIGINT while the test runs, as under `make test &` or nohup: what a child would inherit."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("sigint_ignored_here")
@pytest.mark.parametrize("command", [("test", "--lab", str(REPO)), ("demo",)], ids=["test", "demo"])
def test_ctrl_c_while_playing_ends_quietly(command: tuple[str, ...]) -> None:
    process = subprocess.Popen(
        [str(STEPEVAL), *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
        start_new_session=True,  # its own process group, which Ctrl-C signals as a whole
        preexec_fn=sigint_as_a_shell_gives_it,
    )
    started: set[tuple[int, int]] = set()
    try:
        assert process.stdout is not None
        for line in process.stdout:  # the demo says what it shows first; then, as `test`, what it sets up
            if line.startswith("setting up:"):
                break
        else:
            pytest.fail(f"no setting-up line: {process.communicate()}")
        at_setup = len(descendants(process.pid))
        playing_by = time.monotonic() + PLAYING_WAIT_S
        while len(now := descendants(process.pid)) < at_setup + COPIES and time.monotonic() < playing_by:
            started |= now
            time.sleep(0.05)  # moto's state is being copied for the scenarios: it is playing
        started |= now
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert len(started) >= COPIES, "nothing was started before the interrupt: the test did not interrupt a play"
    assert process.returncode == 130, (out, err)
    assert "Traceback" not in err and "Exception in thread" not in err, err
    assert err.strip().splitlines()[-1] == "stepeval: interrupted", err
    assert started & set(processes()) == set(), "processes it started are still there"
