"""`stepeval test` starts its pool and moto's root before reading the lab (harness/authoring/prestart.py): the
lanes take them over; moto's root starts early only when the spec asks nothing of the emulator; nothing is left if
the lab is bad.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.authoring.lanes import moto_lanes
from harness.authoring.prestart import prestart, services_named
from harness.core.lab import load_lab

pytestmark = [pytest.mark.process, pytest.mark.moto]

REPO = Path(__file__).resolve().parents[2]
SERVERLESS = REPO / "labs" / "serverless-api"
STEPEVAL = str(Path(sys.executable).parent / "stepeval")


def emulator_roots() -> list[int]:
    """Our children that are moto roots (`python -m harness.authoring.emulator`), not yet reaped."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            command = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and stat[0] != "Z" and b"harness.authoring.emulator" in command:
            found.append(int(entry))
    return found


def test_the_lanes_take_over_the_pool_and_the_root_started_early() -> None:
    with prestart(REPO) as prestarted:
        assert prestarted.emulator is not None  # the sample lab's spec has no emulator: key
        lab = load_lab(REPO)
        with moto_lanes(lab, prestarted=prestarted) as lanes:
            assert {lane.seat.emulator for lane in lanes} == {prestarted.emulator}
            assert {lane.runner.pool for lane in lanes} == {prestarted.pool}
            assert prestarted.emulator.root is not None
            prestarted.emulator.root.fork(lanes[0].seat).close()
    assert emulator_roots() == []


def test_a_spec_that_asks_something_of_the_emulator_gets_its_root_after_loading() -> None:
    with prestart(SERVERLESS) as prestarted:
        assert prestarted.emulator is None  # iam_managed_policies: the root's environment depends on it
        lab = load_lab(SERVERLESS)
        with moto_lanes(lab, prestarted=prestarted) as lanes:
            assert lanes[0].seat.emulator.root is not None
            assert {lane.runner.pool for lane in lanes} == {prestarted.pool}


def test_a_root_started_early_and_never_used_leaves_nothing() -> None:
    with prestart(REPO) as prestarted:
        assert prestarted.emulator is not None
        started = time.monotonic() + 30  # the root is forked at once; its exec may lag under load
        while not emulator_roots() and time.monotonic() < started:
            time.sleep(0.05)
        assert emulator_roots() != []
    deadline = time.monotonic() + 10
    while emulator_roots() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert emulator_roots() == []


def test_services_are_read_from_the_labs_files() -> None:
    assert services_named(REPO) == {"ec2", "elbv2", "s3"}


def test_a_bad_lab_is_one_line_exit_2_and_the_root_started_early_says_nothing(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "lab.yaml").write_text("project: [unclosed\n")
    done = subprocess.run([STEPEVAL, "test", "--lab", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "not valid YAML" in done.stderr and "Traceback" not in done.stderr
