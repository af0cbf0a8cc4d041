"""pytest plugin: a lab's steps collected as test items, one per scenario.

`pytest` in a lab repository (a directory with `specs/`, `evaluation/boto3/` and `solution/boto3/` or
`scenarios/`) then runs every scenario with ordinary pytest output, `-k` and `-x`: a step's items come from its
`scenarios/NN_NN.py`, or from its solution file when it has no scenario file (`pytest solution` in a lab of the
platform's format). The steps are played once, in spec order, on moto servers of their own (as `stepeval test`
does), through the same Runner as `stepeval run`; each item reports its own scenario's verdict. Only the steps
that hold a selected item (and the solves before them) are played.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.authoring.extra import INSTALL, missing_modules
from harness.authoring.lanes import moto_lanes
from harness.authoring.playthrough import UNTOUCHED, ScenarioResult, load_scenarios, play_lanes
from harness.authoring.prestart import SCENARIO_DIR, SOLUTION_DIR, SOLUTION_STEM
from harness.core.errors import LabError
from harness.core.lab import Lab, load_lab
from harness.core.paths import STEP_KEY

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr  # what Item.repr_failure returns

PLAYTHROUGH_KEY = pytest.StashKey[dict[Path, "Playthrough"]]()
COLLECTED_KEY = pytest.StashKey[set[tuple[str, str]]]()
EXIT_BAD_INPUT = 2  # as the stepeval commands exit when -k selects nothing


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

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
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
    """`scenarios/NN_NN.py` (or a step's solution file, when it has no scenario file): the untouched-account check,
    each mistake (and each other solution), then the solve."""

    def collect(self) -> list[ScenarioItem]:
        missing = missing_modules()
        if missing:  # the scenarios play on moto: without the authoring extra, one line saying how to get it
            raise self.CollectError(
                f"the scenarios play on moto, which is not installed here ({missing[0]}): {INSTALL}"
            )
        lab_root = _lab_of(self.path)
        playthroughs: dict[Path, Playthrough] = self.config.stash.setdefault(PLAYTHROUGH_KEY, {})
        try:
            if lab_root not in playthroughs:
                playthroughs[lab_root] = Playthrough(load_lab(lab_root))
        except LabError as error:
            raise self.CollectError("\n".join(error.problems)) from None
        match = STEP_KEY.match(self.path.stem)
        step = playthroughs[lab_root].scenarios.get(f"{match.group(1)}.{match.group(2)}") if match else None
        if step is None or self.path not in (step.path, lab_root / SCENARIO_DIR / self.path.name):
            return []  # another solution of a step: its items are collected from the step's own file
        names = [UNTOUCHED, *(m.name for m in step.mistakes), step.solve.name]
        items = [
            ScenarioItem.from_parent(self, name=name, step=step.key, scenario=name, lab_root=lab_root) for name in names
        ]
        for item in items:  # `-k 01.02` as `stepeval test -k 01.02` (`01_02` matches the file's name)
            item.extra_keyword_matches.add(step.key)
        self.config.stash.setdefault(COLLECTED_KEY, set()).update((step.key, name) for name in names)
        return items


def _lab_of(path: Path) -> Path:
    """The lab directory of a scenario file (`LAB/scenarios/`) or a solution file (`LAB/solution/boto3/`)."""
    return path.parent.parent.parent if path.parent.name == SOLUTION_DIR.name else path.parent.parent


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> ScenarioFile | None:
    """Collect `LAB/scenarios/NN_NN.py`, and `LAB/solution/boto3/NN_NN*.py` of a step with no scenario file, where
    LAB holds `specs/`."""
    if file_path.suffix != ".py" or not STEP_KEY.match(file_path.stem):
        return None
    scenario = file_path.parent.name == SCENARIO_DIR and STEP_KEY.fullmatch(file_path.stem)
    solution = file_path.parent.match(f"*/{SOLUTION_DIR}") and SOLUTION_STEM.fullmatch(file_path.stem)
    lab = _lab_of(file_path)
    if scenario or (solution and not (lab / SCENARIO_DIR / f"{file_path.stem[:5]}.py").is_file()):
        return ScenarioFile.from_parent(parent, path=file_path) if (lab / "specs").is_dir() else None
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """What a lab repository outside this one needs, so that its own pytest configuration may be empty: scenario
    items use no asyncio fixture, so pytest-asyncio's warning that its fixture loop scope is unset (printed at
    every run of a repository that sets nothing) says nothing about them; it stays where the option is set or
    wrong. Runs before pytest-asyncio's own `pytest_configure`, inside the warnings filter pytest sets up for it."""
    if config.pluginmanager.hasplugin("asyncio") and not config.getini("asyncio_default_fixture_loop_scope"):
        warnings.filterwarnings(
            "ignore", message='The configuration option "asyncio_default_fixture_loop_scope" is unset'
        )


def pytest_collection_finish(session: pytest.Session) -> None:
    """`-k PATTERN` that leaves nothing to run where scenarios were collected: exit 2 naming the pattern, as
    `stepeval test -k` does (pytest's own exit 5 reads as "no tests", not as a typo)."""
    pattern = session.config.option.keyword
    collected = session.config.stash.get(COLLECTED_KEY, set())
    if pattern and collected and not session.items:
        keys = ", ".join(sorted({step for step, _ in collected}))
        pytest.exit(
            f"-k {pattern!r} selects no scenario: no step key ({keys}) or scenario name contains it", EXIT_BAD_INPUT
        )
