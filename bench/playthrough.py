"""`python -m bench.playthrough`: `stepeval test` and `stepeval check`, beside bare Python processes; the fit of
playthrough time against lab depth on synthetic labs (bench/synthetic.py).

Each measure is a new process, timed wall to wall and in CPU seconds (its own and every process it started),
sampled in turn with its baseline so that both see the same (shared, noisy) machine; medians:
- the sample lab's `stepeval test` beside `python -c` importing boto3 and making one call (to a moto server), and
  against 3 s (a goal for a quiet machine: the load average before and after is printed beside it);
- how much of a playthrough is evaluations (one played in this process): their number, their median wall time,
  and number x median / lanes as a share of the playthrough (what a cheaper evaluation would save);
- `stepeval check` on the sample lab beside `python -c 'import boto3'`;
- `stepeval test` on synthetic labs of N = 4, 8, 16, 32 steps (8 scenarios a step) and of 30 steps; the least
  squares fit T = a + b N + c N^2, and the share of T(32) the quadratic term accounts for (beside the range of
  that share over each round's own fit: on this machine one round's ranges over +-25 %, noise alone).
Goals: test <= 13x its baseline and <= 3 s quiet; check <= 1.6x its baseline; 30 steps <= 10 s; no quadratic term
worth naming.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import ROOT, bench_environment, goals_table, results_console, start_moto, stop
from bench.synthetic import write_synthetic_lab
from harness.authoring.lanes import moto_lanes
from harness.authoring.playthrough import Lane, play_lanes
from harness.core.contract import Answer
from harness.core.lab import Lab, load_lab
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner

DEPTHS = (4, 8, 16, 32)
GOAL_TEST_RATIO, GOAL_CHECK_RATIO, GOAL_30_STEPS_S, GOAL_QUADRATIC_SHARE = 13.0, 1.6, 10.0, 0.05
GOAL_TEST_QUIET_S = 3.0


class TimedRunner(Runner):
    """A Runner that notes the wall time of each evaluation (seconds)."""

    def __init__(self, lab: Lab, pool: WorkerPool) -> None:
        super().__init__(lab, pool)
        self.seconds: list[float] = []

    def evaluate(self, *args: Any, **kwargs: Any) -> Answer:
        started = time.perf_counter()
        try:
            return super().evaluate(*args, **kwargs)
        finally:
            self.seconds.append(time.perf_counter() - started)


def evaluation_share(lab_dir: Path) -> tuple[int, float, float, int, float]:
    """One playthrough of the lab in this process: evaluations, their median seconds, their total seconds, the
    lanes, and the playthrough's wall seconds (the lanes started and stopped excluded)."""
    lab = load_lab(lab_dir)
    with moto_lanes(lab) as lanes:
        runner = TimedRunner(lab, lanes[0].runner.pool)
        timed_lanes = [Lane(runner, lane.seat, lane.account, lane.session) for lane in lanes]
        started = time.perf_counter()
        results = play_lanes(lab, timed_lanes)
        wall = time.perf_counter() - started
    if not all(r.ok for r in results):
        raise SystemExit(f"{lab_dir}: not every scenario answered as expected; run stepeval test")
    return len(runner.seconds), statistics.median(runner.seconds), sum(runner.seconds), len(lanes), wall


def load_average() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def timed(argv: Sequence[str]) -> tuple[float, float]:
    """Wall seconds from start to exit of a process that must succeed, and the CPU seconds of it and every
    process it started (moto's copies included: their root reaps them), which the other agents' load barely moves.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def paired(
    measure: Sequence[str], baseline: Sequence[str], runs: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Median (wall, CPU) of `measure` and of `baseline`, run in turn."""
    timed(baseline)  # warm the file cache
    pairs = [(timed(measure), timed(baseline)) for _ in range(runs)]
    return medians([p[0] for p in pairs]), medians([p[1] for p in pairs])


def medians(samples: Sequence[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def quadratic_fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float, float]:
    """Least squares a, b, c of y = a + b x + c x^2 (the normal equations, solved by Cramer's rule)."""
    s = [sum(x**k for x in xs) for k in range(5)]
    t = [sum(y * x**k for x, y in zip(xs, ys, strict=True)) for k in range(3)]
    m = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]]

    def det(a: list[list[float]]) -> float:
        return (
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
            - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
            + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        )

    whole = det(m)
    solved = []
    for column in range(3):
        replaced = [[t[row] if c == column else m[row][c] for c in range(3)] for row in range(3)]
        solved.append(det(replaced) / whole)
    return solved[0], solved[1], solved[2]


def quadratic_share(times: Sequence[float]) -> float:
    """c N^2 at the deepest of DEPTHS as a share of its time, for `times` measured at DEPTHS: one round's fit, whose
    spread over the rounds says how much of the medians' fit this machine's noise can account for."""
    c = quadratic_fit(DEPTHS, times)[2]
    return c * DEPTHS[-1] ** 2 / times[-1]


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.playthrough", description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="sample lab `stepeval test` runs (3)")
    parser.add_argument("--check-runs", type=int, default=7, help="`stepeval check` runs (7)")
    parser.add_argument("--depth-runs", type=int, default=4, help="rounds over the synthetic labs (4)")
    parser.add_argument("--no-depth", action="store_true", help="skip the synthetic labs (the heavy part)")
    args = parser.parse_args()
    bench_environment()

    console = results_console("playthrough")
    stepeval = str(Path(sys.executable).parent / "stepeval")
    moto, moto_url = start_moto()
    try:
        client = f"boto3.client('sts', endpoint_url={moto_url!r}, region_name='us-east-1')"
        one_call = [sys.executable, "-c", f"import boto3; {client}.get_caller_identity()"]
        load_before = load_average()
        (test_s, test_cpu), (bare_call_s, bare_call_cpu) = paired(
            [stepeval, "test", "--lab", str(ROOT)], one_call, args.runs
        )
        load_after = load_average()
        (check_s, check_cpu), (bare_import_s, bare_import_cpu) = paired(
            [stepeval, "check", "--lab", str(ROOT)], [sys.executable, "-c", "import boto3"], args.check_runs
        )
    finally:
        stop(moto)
    evaluations, evaluation_s, evaluations_s, lanes, played_s = evaluation_share(ROOT)
    rows: list[tuple[str, str, str, bool | None]] = [
        ("python -c: import boto3, one call to moto", f"{bare_call_s:.2f} s (CPU {bare_call_cpu:.2f} s)", "", None),
        ("stepeval test, the sample lab (67 scenarios)", f"{test_s:.2f} s (CPU {test_cpu:.2f} s)",
         f"<= {GOAL_TEST_RATIO:g}x = {GOAL_TEST_RATIO * bare_call_s:.1f} s", test_s <= GOAL_TEST_RATIO * bare_call_s),
        ("  ... as a multiple of the bare process, wall (CPU)",
         f"{test_s / bare_call_s:.1f}x ({test_cpu / bare_call_cpu:.1f}x)", "", None),
        (f"  ... against 3 s (load average before {load_before}, after {load_after})", f"{test_s:.2f} s",
         f"<= {GOAL_TEST_QUIET_S:g} s quiet", test_s <= GOAL_TEST_QUIET_S),
        ("  evaluations in one playthrough (in process), median wall", f"{evaluations} x {evaluation_s * 1000:.0f} ms",
         "", None),
        (f"  ... total / {lanes} lanes, as a share of that playthrough",
         f"{evaluations_s / lanes:.2f} s of {played_s:.2f} s = {evaluations_s / lanes / played_s:.0%}", "", None),
        ("python -c 'import boto3'", f"{bare_import_s:.2f} s (CPU {bare_import_cpu:.2f} s)", "", None),
        ("stepeval check, the sample lab", f"{check_s:.2f} s (CPU {check_cpu:.2f} s)",
         f"<= {GOAL_CHECK_RATIO:g}x", check_s <= GOAL_CHECK_RATIO * bare_import_s),
        ("  ... as a multiple of import boto3, wall (CPU)",
         f"{check_s / bare_import_s:.2f}x ({check_cpu / bare_import_cpu:.2f}x)", "", None),
    ]  # fmt: skip
    if not args.no_depth:
        tmp = Path(tempfile.mkdtemp(prefix="stepeval-depth-"))
        labs = {depth: write_synthetic_lab(tmp / f"lab{depth}", depth) for depth in (*DEPTHS, 30)}
        samples: dict[int, list[tuple[float, float]]] = {depth: [] for depth in labs}
        for _ in range(args.depth_runs):
            for depth, lab in labs.items():
                samples[depth].append(timed([stepeval, "test", "--lab", str(lab)]))
        wall = {depth: medians(values)[0] for depth, values in samples.items()}
        cpu = {depth: medians(values)[1] for depth, values in samples.items()}
        fits = {
            name: quadratic_fit(DEPTHS, [times[n] for n in DEPTHS]) for name, times in (("wall", wall), ("CPU", cpu))
        }
        rows += [
            *((f"synthetic lab, {n} steps x 8 scenarios", f"{wall[n]:.2f} s (CPU {cpu[n]:.2f} s)", "", None)
              for n in DEPTHS),
            ("synthetic lab, 30 steps x 8 scenarios", f"{wall[30]:.2f} s (CPU {cpu[30]:.2f} s)",
             f"<= {GOAL_30_STEPS_S:g} s", wall[30] <= GOAL_30_STEPS_S),
        ]  # fmt: skip
        for index, (name, (a, b, c)) in enumerate(fits.items()):
            at_32 = wall[32] if name == "wall" else cpu[32]
            share = c * 32**2 / at_32
            rounds = sorted(quadratic_share([samples[n][run][index] for n in DEPTHS]) for run in range(args.depth_runs))
            rows += [
                (f"fit, {name} seconds: a + b N + c N^2", f"{a:.3f} + {b:.4f} N + {c:+.6f} N^2", "", None),
                (f"  ... c N^2 at N = 32, as a share of {name} T(32) (each round's own fit)",
                 f"{share:+.1%} ({rounds[0]:+.0%} to {rounds[-1]:+.0%})",
                 f"< {GOAL_QUADRATIC_SHARE:.0%}", share < GOAL_QUADRATIC_SHARE),
            ]  # fmt: skip
    console.print(goals_table(f"Playthrough and check, wall time of new processes ({os.cpu_count()} cores)", rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
