"""The playthrough as it was before copies (reset moto, replay the earlier solves, then play): the reference the
forking playthrough must answer exactly like, ids included (tests/authoring/test_playthrough.py compares them).

Sequential and slow on purpose: nothing here but the reset, the seeds and the replays.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable

from harness.authoring.events import EventRecorder
from harness.authoring.playthrough import (
    UNTOUCHED,
    ScenarioResult,
    ScenarioSession,
    StepScenarios,
    given_events,
    load_scenarios,
)
from harness.authoring.results import judged
from harness.authoring.scenarios import Scenario
from harness.core.account import Account
from harness.core.contract import ContextInput, Event, Handle
from harness.core.lab import Lab
from harness.sandbox.runner import Runner


def replayed_playthrough(
    lab: Lab, runner: Runner, sandbox: Account, select: Callable[[str], bool] | None = None
) -> list[ScenarioResult]:
    """Every scenario of the selected steps, each on a reset server after replaying the earlier solves."""
    assert sandbox.endpoint_url is not None
    endpoint = sandbox.endpoint_url
    session = ScenarioSession(endpoint, sandbox)
    recorder = EventRecorder(session)
    scenarios = load_scenarios(lab)
    order = list(lab.steps)
    chosen = [key for key in order if select is None or select(key)]
    needed = order[: order.index(chosen[-1]) + 1]
    solved: list[tuple[StepScenarios, int]] = []
    resolved: dict[str, Handle] = {}
    results: list[ScenarioResult] = []

    def moto_api(path: str) -> None:
        request = urllib.request.Request(f"{endpoint}/moto-api/{path}", method="POST")
        with urllib.request.urlopen(request, timeout=10):
            pass

    def evaluate(key: str, events: tuple[Event, ...]) -> object:
        return runner.evaluate(key, ContextInput(resolved=list(resolved.values()), events=list(events)), sandbox)

    def play(step: StepScenarios, scenario: Scenario, actions: tuple[Scenario, ...], seed: int) -> ScenarioResult:
        moto_api("reset")
        handles = {name: handle.id for name, handle in resolved.items()}
        for earlier, earlier_seed in solved:
            moto_api(f"seed?a={earlier_seed}")
            earlier.solve.action(session, handles)
        moto_api(f"seed?a={seed}")
        recorder.start()
        for action in actions:
            action.action(session, handles)
        events = given_events(scenario, [dict(e) for e in recorder.events])
        expected = "pass" if scenario.kind == "solve" else scenario.expect
        answer = evaluate(step.key, events)
        return judged(
            step.key, scenario.name, scenario.kind, expected, scenario.issue, answer, events, time.perf_counter()
        )

    moto_api("reset")
    for index, key in enumerate(needed):
        step, seed = scenarios[key], index + 1
        if key in chosen:
            answer = evaluate(key, ())
            results.append(judged(key, UNTOUCHED, "negative", "fail", None, answer, (), time.perf_counter()))
            for mistake in step.mistakes:
                actions = (step.solve, mistake) if mistake.after_solve else (mistake,)
                results.append(play(step, mistake, actions, seed))
        solve = play(step, step.solve, (step.solve,), seed)
        if key in chosen or not solve.ok:
            results.append(solve)
        if solve.answer is not None:
            resolved.update((handle.name, handle) for handle in solve.answer.resolved)
        solved.append((step, seed))
    return results
