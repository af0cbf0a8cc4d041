"""pytest plugin: a lab's `scenarios/NN_NN.py` files collected as test items, one per scenario.

`pytest` in a lab repository (a directory with `specs/`, `evaluation/boto3/` and `scenarios/`) then runs every
scenario with ordinary pytest output, `-k` and `-x`. The steps are played once, in spec order, on moto servers
of their own (as `stepeval test` does), through the same Runner as `stepeval run`; each item reports its own
scenario's verdict. Only the steps that hold a selected item (and the solves before them) are played.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.authoring.lanes import moto_lanes
from harness.authoring.playthrough import UNTOUCHED, ScenarioResult, load_scenarios, play_lanes
from harness.core.errors import LabError
from harness.core.lab import STEP_KEY, Lab, load_lab

PLAYTHROUGH_KEY = pytest.StashKey["Playthrough"]()


class Playthrough:
    """One playthrough per lab per pytest session, played when the first of its items runs."""

    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self.scenarios = load_scenarios(lab)
        self.results: dict[tuple[str, str], ScenarioResult] | None = None

    def result(self, item: ScenarioItem) -> ScenarioResult:
        if self.results is None:
            selected = {
                i.step for i in item.session.items if isinstance(i, ScenarioItem) and i.lab_root == self.lab.root
            }
            with moto_lanes(self.lab) as lanes:
                played = play_lanes(self.lab, lanes, select=selected.__contains__)
            self.results = {(r.step, r.scenario): r for r in played}
        return self.results[(item.step, item.scenario)]


class ScenarioFailure(Exception):
    """A scenario that did not answer as expected."""


class ScenarioItem(pytest.Item):
    """One scenario of one step: the untouched account, a mistake, or the solve."""

    def __init__(self, *, step: str, scenario: str, lab_root: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.step = step
        self.scenario = scenario
        self.lab_root = lab_root

    def runtest(self) -> None:
        playthroughs: dict[Path, Playthrough] = self.config.stash[PLAYTHROUGH_KEY]
        result = playthroughs[self.lab_root].result(self)
        if not result.ok:
            raise ScenarioFailure(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailure):
            result: ScenarioResult = excinfo.value.args[0]
            expected = result.expected + (
                f" with an issue matching {result.expected_issue!r}" if result.expected_issue else ""
            )
            return (
                f"step {result.step}, {result.kind} {result.scenario!r}: expected {expected}, got {result.got}\n"
                f"issue: {result.issue}\n{result.detail}"
            )
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.step}::{self.scenario}"


class ScenarioFile(pytest.File):
    """`scenarios/NN_NN.py`: the untouched-account check, each mistake, then the solve."""

    def collect(self) -> list[ScenarioItem]:
        lab_root = self.path.parent.parent
        playthroughs: dict[Path, Playthrough] = self.config.stash.setdefault(PLAYTHROUGH_KEY, {})
        try:
            if lab_root not in playthroughs:
                playthroughs[lab_root] = Playthrough(load_lab(lab_root))
        except LabError as error:
            raise self.CollectError("\n".join(error.problems)) from None
        step = playthroughs[lab_root].scenarios[self.path.stem.replace("_", ".")]
        names = [UNTOUCHED, *(m.name for m in step.mistakes), step.solve.name]
        return [
            ScenarioItem.from_parent(self, name=name, step=step.key, scenario=name, lab_root=lab_root) for name in names
        ]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> ScenarioFile | None:
    """Collect `LAB/scenarios/NN_NN.py` where LAB holds `specs/`."""
    if (
        file_path.suffix == ".py"
        and file_path.parent.name == "scenarios"
        and STEP_KEY.fullmatch(file_path.stem)
        and (file_path.parent.parent / "specs").is_dir()
    ):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None
