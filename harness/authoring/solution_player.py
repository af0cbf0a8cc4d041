"""Play a lab's reference solutions up to a step on moto, and hand back what that step was given and built.

For tools that start from what a solution did (`stepeval new --from-solution`): no evaluation, no worker pool, one
moto process at a time. Each step's first solution acts on the state the one before it left, seeded as a
playthrough seeds it (step N's copies with N), so ids are those `stepeval test` sees.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from harness.authoring.emulator import Emulator
from harness.authoring.intercept import Interceptor
from harness.authoring.mutants import Call
from harness.authoring.player import LaneSession, ScenarioSession
from harness.authoring.prestart import services_named
from harness.authoring.solutions import load_solutions, run_solution
from harness.core.contract import Event, Handle
from harness.core.errors import LabError
from harness.core.lab import Lab


@dataclass(frozen=True)
class SolutionPlay:
    """What playing the solutions up to `step` gave that step.

    `resolved`: the handles of earlier steps it was given (their solutions' resources); `events`: the resources its
    solution's calls created, as the platform would send them; `resources`: the handles its solution returned (ids
    in AWS's form); `calls`: its solution's write calls as sent (parameters and parsed responses); `session`: a
    boto3 Session on the emulator holding the state after the step (usable only inside `solution_played`).
    """

    step: str
    region: str
    resolved: tuple[Handle, ...]
    events: tuple[Event, ...]
    resources: tuple[Handle, ...]
    calls: tuple[Call, ...]
    session: ScenarioSession


@contextmanager
def solution_played(lab: Lab, key: str, *, region: str | None = None) -> Iterator[SolutionPlay]:
    """Play the first solution of every step up to and including step `key` (e.g. "01.02") on moto in `region`
    (default us-east-1), with what the spec's `emulator:` asks; yield what step `key` was given and built, its
    `session` still serving the state after it; moto is stopped on exit.

    LabError when a step on the way has no solution or a solution file is wrong; SolutionError (naming the step,
    the file and the fault) when a solution raises, returns an error or names its resources wrongly.
    """
    target = lab.step(key).key
    order = list(lab.steps)[: list(lab.steps).index(target) + 1]
    solutions = load_solutions(lab)
    missing = [step for step in order if step not in solutions]
    if missing:
        raise LabError(
            [
                f"{lab.root}: step {step} has no solution (solution/boto3/{step.replace('.', '_')}.py)"
                for step in missing
            ]
        )
    environment = lab.spec.emulator.environment()
    with Emulator(1, env=environment, services=services_named(lab.root), region=region) as emulator:
        assert emulator.root is not None
        seat = emulator.seats[0]
        acting = LaneSession.on(seat)
        resolved: dict[str, Handle] = {}
        state = None
        for seed, step in enumerate(order, start=1):
            if state is None:
                state = emulator.root.fork(seat, seed)
            else:  # the state the last solution left, seeded for this step: its evaluation's copy is not needed
                state.hand_over(seat).close()
                state.serve(seat, seed)
            given = tuple(resolved.values())
            acting.recorder.start()
            interceptor = Interceptor()
            with interceptor.active():
                returned = run_solution(solutions[step][0], interceptor.session(acting.session), given, lab.steps[step])
            resolved.update((handle.name, handle) for handle in returned)
        events = tuple(Event(**event) for event in acting.recorder.events)
        yield SolutionPlay(
            target, emulator.region, given, events, tuple(returned), tuple(interceptor.calls), acting.session
        )


def play_solution(lab: Lab, key: str, *, region: str | None = None) -> SolutionPlay:
    """`solution_played` for what it returns alone: the step's resolved handles, events, resources and calls
    (its `session` no longer reaches anything once this returns)."""
    with solution_played(lab, key, region=region) as played:
        return played
