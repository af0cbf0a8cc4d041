"""`python -m bench.mutate`: the whole `stepeval mutate` run on the sample lab, beside `stepeval test` (same run).

Both as real processes on the repository's own lab (the web-tier lab), alternating, `--rounds` times each; the
figure that counts is the ratio of the medians (goal: mutate <= 2x test), never an absolute time: the machine
is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rich.table import Table

from bench.common import results_console

LAB = Path(__file__).resolve().parent.parent
STEPEVAL = str(Path(sys.executable).parent / "stepeval")
GOAL_RATIO = 2.0


def timed(argv: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall time of one command, and what it printed."""
    env = {**os.environ, "STEPEVAL_LOG_LEVEL": "WARNING"}
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=1800)
    return time.perf_counter() - started, done


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mutate", description=__doc__)
    parser.add_argument("--rounds", type=int, default=1, help="runs of each command, alternating (default 1)")
    args = parser.parse_args()
    tests, mutates, mutants = [], [], 0
    load_before = os.getloadavg()[0]
    for _ in range(args.rounds):
        seconds, done = timed([STEPEVAL, "test", "--lab", str(LAB), "--json"])
        if done.returncode != 0:
            raise SystemExit(f"stepeval test failed: {done.stderr[-500:]}")
        tests.append(seconds)
        seconds, done = timed([STEPEVAL, "mutate", "--lab", str(LAB), "--json"])
        if done.returncode != 0:
            raise SystemExit(f"stepeval mutate failed: {done.stderr[-500:]}")
        mutates.append(seconds)
        mutants = len(json.loads(done.stdout)["mutants"])
    test_s, mutate_s = statistics.median(tests), statistics.median(mutates)
    ratio = mutate_s / test_s
    paired = [m / t for t, m in zip(tests, mutates, strict=True)]  # each mutate beside the test just before it
    table = Table(title=f"stepeval mutate vs stepeval test on the sample lab (medians of {args.rounds})")
    for column in ("measure", "value", "goal", "met"):
        table.add_column(column)
    table.add_row("stepeval test", f"{test_s:.1f} s", "", "")
    table.add_row(f"stepeval mutate ({mutants} mutants, the scenarios too)", f"{mutate_s:.1f} s", "", "")
    met = "[green]yes[/]" if ratio <= GOAL_RATIO else "[red]no[/]"
    table.add_row("mutate / test", f"{ratio:.2f}x", f"<= {GOAL_RATIO:g}x", met)
    table.add_row("each round's mutate / test", ", ".join(f"{r:.2f}x" for r in paired), "", "")
    table.add_row("load average (1 min) before / after", f"{load_before:.1f} / {os.getloadavg()[0]:.1f}", "", "")
    results_console("mutate").print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
