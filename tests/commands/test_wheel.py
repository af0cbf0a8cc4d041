"""A wheel built from this checkout, installed (not editable) in a fresh venv, runs `stepeval demo` as an unprivileged
user with no chromium and no PostgreSQL on PATH: what `pip install stepeval` and a newcomer without root get. As
root the demo runs as `nobody` (through setpriv); a run without root is that unprivileged user already.

The fresh venv gets the wheel alone (`--no-deps`); its dependencies are those of this test's venv, hard-linked into
its site-packages (not through a path file: an evaluation process may read only its environment's own packages),
the editable install left out, so the test needs no registry and the `harness` imported is the wheel's.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import site
import subprocess
import sys
import tempfile
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

# pytest-timeout's 120 s would stop it first (its teardown alone, removing a venv of hard-linked packages, took that
# long on a loaded machine): each subprocess below has a timeout of its own, and this only guards a hang
pytestmark = [pytest.mark.process, pytest.mark.moto, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[2]
UNPRIVILEGED = "nobody"


def as_nobody(*command: str | Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    """`command` as `nobody` (as root), or as this run's own uid (without root: unprivileged already)."""
    switch = []
    if os.geteuid() == 0:
        nobody = pwd.getpwnam(UNPRIVILEGED)
        switch = [
            shutil.which("setpriv") or "setpriv",
            f"--reuid={nobody.pw_uid}",
            f"--regid={nobody.pw_gid}",
            "--clear-groups",
            "--",
        ]
    argv = [*switch, *map(str, command)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, cwd="/")


def link_packages(source: Path, target: Path) -> None:
    """This venv's packages hard-linked into `target`, but this checkout's editable install: an evaluation process
    reads only its own environment's packages (Landlock, its mount namespace), not those a path file names."""
    for entry in source.iterdir():
        if entry.name.startswith(("__editable__", "stepeval-")) or (target / entry.name).exists():
            continue
        if entry.is_dir():
            shutil.copytree(entry, target / entry.name, copy_function=os.link, symlinks=True)
        else:
            os.link(entry, target / entry.name)


def not_as_expected(stdout: str) -> str:
    """The scenarios `stepeval demo --json` played not as expected (what its exit 1 is about), or its output's end."""
    try:
        shown = json.loads(stdout)
    except ValueError:
        return stdout[-3000:]
    played = shown.get("playthrough", []) + shown.get("serverless_playthrough", [])
    wrong = [r for r in played if not r.get("ok")]
    return "\n".join(f"{r['step']} {r['scenario']}: got {r['got']}: {r['issue']} {r['detail'][:300]!r}" for r in wrong)


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A directory every user may read (pytest's own tmp_path is under a root-only directory)."""
    path = Path(tempfile.mkdtemp(prefix="stepeval-wheel-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.timeout(900)  # a wheel built, a venv installed, the demo played: 2 min on a loaded machine
def test_a_built_wheel_runs_the_demo_as_an_unprivileged_user(open_tmp: Path) -> None:
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("runs the demo as nobody through setpriv, which is missing here")
    deps = [path for path in site.getsitepackages() if os.path.isdir(path)]  # a Debian python names absent ones
    readable = as_nobody(sys.executable, "-c", "import sys; sys.path[:0] = sys.argv[1:]; import boto3", *deps,
                         env={"PATH": "/usr/bin:/bin"}, timeout=60)  # fmt: skip
    if readable.returncode != 0:
        pytest.skip(f"{UNPRIVILEGED} cannot run this interpreter with this venv's packages: {readable.stderr[-200:]}")
    tmp_path = open_tmp
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", tmp_path, REPO],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("stepeval-*.whl")
    fresh = tmp_path / "venv"
    venv.create(fresh, with_pip=False)
    purelib = next(fresh.glob("lib/python*/site-packages"))
    for packages in {os.path.realpath(dep) for dep in deps}:
        link_packages(Path(packages), purelib)
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", fresh / "bin" / "python", "install", "--quiet", "--no-deps", wheel],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    assert (purelib / "harness" / "samples" / "web-tier" / "specs").is_dir()  # the sample labs, as package data

    env = {
        "PATH": str(fresh / "bin"),  # no chromium, no pg_ctl, no apt-get: python and stepeval only
        "HOME": "/nonexistent",
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    demo = as_nobody(fresh / "bin" / "stepeval", "demo", "--json", env=env, timeout=600)
    assert demo.returncode == 0, demo.stderr[-3000:] + not_as_expected(demo.stdout)
    assert '"serverless_playthrough"' in demo.stdout
    assert "untouched: True" in demo.stderr
    which = as_nobody(fresh / "bin" / "python", "-c", "import harness; print(harness.__file__)", env=env, timeout=60)
    assert which.stdout.strip().startswith(str(purelib)), which  # the wheel's harness, not the checkout's
