"""`python -m bench.labs`: playthrough time per scenario of the serverless sample lab beside the web-tier lab's.

Both labs are played as `stepeval test` plays them (two moto server processes each, with what the spec's
`emulator:` asks), alternately, `--rounds` times in the same run; the figure is the median wall time of a whole
playthrough divided by its number of scenarios. Goal: serverless / web-tier <= 1.5.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from rich.table import Table

from bench.common import results_console
from harness.authoring.lanes import moto_lanes
from harness.authoring.playthrough import play_lanes
from harness.core.lab import Lab, load_lab
from harness.sandbox.pool import LOG_LEVEL_ENV

REPO = Path(__file__).resolve().parents[1]
LABS = {"web-tier": REPO, "serverless-api": REPO / "labs" / "serverless-api"}
GOAL_RATIO = 1.5


def per_scenario_s(lab: Lab) -> tuple[float, int]:
    """One whole playthrough (servers started and stopped included): seconds per scenario, and the count."""
    started = time.perf_counter()
    with moto_lanes(lab) as lanes:
        results = play_lanes(lab, lanes)
    if not all(r.ok for r in results):
        raise SystemExit(f"{lab.spec.project}: not every scenario answered as expected; run stepeval test")
    return (time.perf_counter() - started) / len(results), len(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ[LOG_LEVEL_ENV] = "WARNING"
    labs = {name: load_lab(path) for name, path in LABS.items()}
    times: dict[str, list[float]] = {name: [] for name in labs}
    counts: dict[str, int] = {}
    for _ in range(args.rounds):
        for name, lab in labs.items():
            seconds, counts[name] = per_scenario_s(lab)
            times[name].append(seconds)
    medians = {name: statistics.median(values) for name, values in times.items()}
    table = Table(title=f"Playthrough per scenario, median of {args.rounds} rounds (same run)")
    for column in ("lab", "scenarios", "s per scenario", "all rounds"):
        table.add_column(column)
    for name, values in times.items():
        table.add_row(name, str(counts[name]), f"{medians[name]:.3f}", ", ".join(f"{v:.3f}" for v in values))
    console = results_console("labs")
    console.print(table)
    ratio = medians["serverless-api"] / medians["web-tier"]
    verdict = "met" if ratio <= GOAL_RATIO else "NOT met"
    console.print(f"serverless-api / web-tier = {ratio:.2f} (goal <= {GOAL_RATIO}: {verdict})")


if __name__ == "__main__":
    main()
