"""Last release's authoring names (0.1.0: `harness.recorder`, `harness.scenarios`) keep working with a
DeprecationWarning naming their new home; a lab written against them plays unchanged (tests/labs/last_release)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import warnings
from pathlib import Path

import pytest

from tests.conftest import LABS, STEPEVAL

# every public name each module had in 0.1.0 (`git show bce2924^:harness/recorder.py`, `...:harness/scenarios.py`)
# -> its home now
LAST_RELEASE = {
    "harness.recorder": {
        **{
            name: ("harness.authoring.events", name)
            for name in (
                "IdGetter",
                "PARAMS_KEY",
                "from_params",
                "from_response",
                "ELBV2",
                "RULES",
                "EventRecorder",
                "event_for",
                "aws_form",
                "rule_for",
                "from_identifier",
            )
        },
        "Rule": ("harness.authoring.events", "EventRule"),
    },
    "harness.scenarios": {
        name: ("harness.authoring.scenarios", name)
        for name in (
            "Action",
            "EventEdit",
            "EventOrder",
            "SCENARIO_ATTRIBUTE",
            "EQUIVALENT_ATTRIBUTE",
            "Scenario",
            "solve",
            "mistake",
            "Equivalent",
            "equivalent",
            "equivalents",
        )
    },
}
OLD_NAMES = [(module, name) for module, names in LAST_RELEASE.items() for name in names]


@pytest.mark.parametrize(("module", "name"), OLD_NAMES, ids=[f"{m}.{n}" for m, n in OLD_NAMES])
def test_an_old_name_is_the_new_object_with_a_warning_naming_its_home(module: str, name: str) -> None:
    home, new_name = LAST_RELEASE[module][name]
    old = importlib.import_module(module)
    with pytest.warns(DeprecationWarning) as caught:
        value = getattr(old, name)
    assert value is getattr(importlib.import_module(home), new_name)
    (warning,) = caught
    assert str(warning.message).startswith(f"{module}.{name} is deprecated: use {home}.{new_name} ")
    assert warning.filename == __file__  # the warning points at the lab's line, not at the shim


def test_the_old_modules_serve_exactly_last_releases_names() -> None:
    for module, names in LAST_RELEASE.items():
        old = importlib.import_module(module)
        assert sorted(old.__all__) == sorted(names)
        with pytest.raises(AttributeError, match="has no attribute 'nothing_like_this'"):
            old.nothing_like_this  # noqa: B018


def test_a_star_import_of_an_old_module_works() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names: dict[str, object] = {}
        exec("from harness.scenarios import *", names)
    assert {"mistake", "solve", "equivalent"} <= names.keys()
    assert all(issubclass(w.category, DeprecationWarning) for w in caught) and len(caught) == 11


@pytest.mark.process
@pytest.mark.moto
def test_a_lab_written_for_last_release_plays_unchanged_and_says_what_moved() -> None:
    done = subprocess.run(
        [STEPEVAL, "test", "--lab", str(LABS / "last_release"), "--json"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(done.stdout)
    assert len(results) == 7 and all(r["ok"] for r in results), results
    moved = [line for line in done.stderr.splitlines() if "is deprecated" in line]
    scenarios = (LABS / "last_release" / "scenarios").relative_to(Path.cwd())  # pytest runs at the root
    assert moved[0] == (
        f"stepeval: {scenarios / '01_01.py'}:3: harness.recorder.RULES is deprecated:"
        " use harness.authoring.events.RULES (the old name goes in a later release: docs/user.md, 'The public API')"
    )
    assert f"stepeval: {scenarios / '01_01.py'}:3: harness.recorder.Rule is deprecated: use " in done.stderr
    assert "harness.authoring.events.EventRule" in done.stderr
    assert len(moved) == 8  # each name on each line once, though the files are loaded more than once
    assert "Traceback" not in done.stderr
