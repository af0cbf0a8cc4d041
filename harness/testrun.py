"""`stepeval test`: play a lab's scenarios on moto servers of its own and say which answered as expected."""

from __future__ import annotations

import gc
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console

from harness.emulator import Emulator
from harness.lab import Lab, load_lab
from harness.playthrough import Lane, LaneSession, ScenarioResult, lab_services, load_scenarios, play_lanes
from harness.pool import playthrough_pool
from harness.prestart import LANES, Prestarted
from harness.render import results_table
from harness.runner import Runner


@contextmanager
def moto_lanes(
    lab: Lab, count: int = LANES, env: Mapping[str, str] | None = None, prestarted: Prestarted | None = None
) -> Iterator[list[Lane]]:
    """An `Emulator` with `count` seats and one started worker pool of `count` for all of them; all stopped after.

    moto's processes get `env`, by default what the lab spec's `emulator:` asks (e.g. AWS managed policies). The
    pool's template starts first and moto's root right after, before anything waits on either: the template
    imports boto3 while the root imports moto (`prestarted`: both started before the lab was loaded; taken over
    here, its emulator only if this lab asks nothing of it); the lanes' sessions make their clients while moto's
    root starts (`LaneSession.on`). At the end the pool closes (its gateway's server takes
    up to half a second to stop) while moto's processes end.
    """
    environment = lab.spec.emulator.environment() if env is None else env
    pool = prestarted.pool if prestarted is not None and prestarted.pool.size == count else playthrough_pool(count)
    early = prestarted.emulator if prestarted is not None else None
    if early is not None and (environment or len(early.seats) != count):
        early.__exit__(None, None, None)
        early = None
    services = lab_services(lab)
    with pool, ThreadPoolExecutor(1, thread_name_prefix="lane-sessions") as making:
        pool.start()
        closing = threading.Thread(target=pool.close, name="closing-the-pool", daemon=True)
        try:
            emulator = early or Emulator(count, env=environment, services=services)
            try:
                emulator.start()  # no wait: the lanes' sessions and clients are made while moto's root starts
            except BaseException:
                emulator.__exit__(None, None, None)
                raise
            sessions = making.submit(lambda: [LaneSession.on(seat, services) for seat in emulator.seats])
            with emulator:
                pool.warn_if_degraded()
                runner = Runner(lab, pool)
                try:
                    yield [
                        Lane(runner, seat, seat.sandbox(), session)
                        for seat, session in zip(emulator.seats, sessions.result(), strict=True)
                    ]
                finally:
                    closing.start()
        finally:
            if closing.ident is not None:
                closing.join()


def selector(lab: Lab, pattern: str | None) -> Callable[[str], bool] | None:
    """Steps whose key, or one of whose scenario names, contains `pattern` (case-insensitive)."""
    if not pattern:
        return None
    needle = pattern.lower()
    names = {key: [step.solve.name, *(m.name for m in step.mistakes)] for key, step in load_scenarios(lab).items()}
    return lambda key: needle in key or any(needle in name.lower() for name in names.get(key, []))


def play_live(
    lab: Lab, lanes: list[Lane], console: Console, select: Callable[[str], bool] | None = None
) -> list[ScenarioResult]:
    """Play with a live progress line on `console`."""
    played: list[ScenarioResult] = []
    with console.status("starting") as status:

        def progress(result: ScenarioResult) -> None:
            played.append(result)
            unexpected = sum(not r.ok for r in played)
            status.update(f"{len(played)} played, {unexpected} unexpected: {result.step} {result.scenario}")

        return play_lanes(lab, lanes, select=select, on_result=progress)


def report(results: list[ScenarioResult], elapsed_s: float, console: Console, *, as_json: bool) -> int:
    """The table (or JSON) and a one-line verdict; 0 when every scenario answered as expected, else 1."""
    unexpected = [r for r in results if not r.ok]
    if as_json:
        print(json.dumps([plain(r) for r in results], indent=2))
    else:
        console.print(results_table(results))
    verdict = "[green]all as expected[/]" if not unexpected else f"[red]{len(unexpected)} not as expected[/]"
    steps = len({r.step for r in results})
    console.print(f"{len(results)} scenarios in {steps} steps, {verdict} ({elapsed_s:.1f} s)")
    return 1 if unexpected else 0


def run_tests(
    lab_dir: Path,
    *,
    pattern: str | None = None,
    as_json: bool = False,
    html: Path | None = None,
    prestarted: Prestarted | None = None,
) -> int:
    """`stepeval test`: play the lab on moto servers of its own, then report (and write the HTML report to `html`).

    `prestarted`: the pool (and moto's root) `stepeval test` started before loading anything (harness/prestart.py).
    """
    lab = load_lab(lab_dir)
    select = selector(lab, pattern)
    console = Console(stderr=as_json)
    started = time.perf_counter()
    with ThreadPoolExecutor(1, thread_name_prefix="report") as output:
        with moto_lanes(lab, prestarted=prestarted) as lanes, no_collections():
            results = play_live(lab, lanes, console, select)
            elapsed_s = time.perf_counter() - started
            # written while moto's processes and the pool end (the gateway takes up to half a second to stop)
            written = output.submit(_write, lab, results, elapsed_s, console, as_json, html)
        return written.result()


def _write(
    lab: Lab, results: list[ScenarioResult], elapsed_s: float, console: Console, as_json: bool, html: Path | None
) -> int:
    """The HTML report (if asked), then the table or JSON and the verdict; the exit code."""
    if html is not None:
        from harness.report import write_report

        console.print(f"report written to {write_report(lab, html, results, None, elapsed_s)}")
    return report(results, elapsed_s, console, as_json=as_json)


@contextmanager
def no_collections() -> Iterator[None]:
    """No garbage collection while the lanes play: ~0.35 s of the sample lab's CPU went to collections that walk
    the service models and modules loaded for good, for ~30 KB of cyclic garbage per scenario (collected after)."""
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


def plain(result: ScenarioResult) -> dict:
    """A result as plain JSON-able data (the answer itself left out)."""
    return {
        "step": result.step,
        "scenario": result.scenario,
        "kind": result.kind,
        "expected": result.expected,
        "expected_issue": result.expected_issue,
        "got": result.got,
        "issue": result.issue,
        "ok": result.ok,
        "duration_ms": result.duration_ms,
        "detail": result.detail,
    }
