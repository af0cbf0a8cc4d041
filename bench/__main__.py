"""`python -m bench`: the harness's overhead per step, warm and cold, beside naive baselines.

Warm: one step making one describe call against a moto server process, median of many evaluations through the
pool (a fresh confined process each, its AWS call through the read-only gateway), minus the median of the bare
describe call on a warm client (what the module's AWS call costs), each timed the same way: with a short pause
before each (a hook reaching a service that is not saturated: its spare is ready; on this VM a call after a
pause costs ~2 ms more than one in a back-to-back series, bare or not), and back to back (each evaluation then
shares the CPU with the forking of the next one's spare; throughput is bench/service.py's measure).
The gateway's own cost: the same call over a link through the gateway, minus bare, the two sampled in turn.
Naive baseline, same run: a fresh boto3.Session() and client per evaluation, module run inline.
Cold: `stepeval run` as a new process, one call against a moto server on loopback, beside a bare boto3 process
making the same call; medians, sampled in turn.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import boto3
from moto.server import ThreadedMotoServer
from rich.table import Table

from bench.common import MODES, interleaved_cpu_ms, interleaved_medians, median_ms, results_console, run_in_mode
from harness.authoring.emulator import moto_process
from harness.core.contract import ContextInput
from harness.core.lab import load_lab
from harness.inside.link import GatewayLink
from harness.inside.loader import load_step
from harness.inside.session import GatewaySession
from harness.sandbox.gateway import Gateway
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner

LAB = Path(__file__).parent / "lab"
REGION = "us-east-1"
GOAL_WARM_MS = 5.0
PAUSE_S = 0.05  # between timed evaluations: long enough for the pool's spares to be ready
GOAL_RATIO = 20.0
GOAL_COLD_RATIO = 1.3


def warm(runs: int) -> dict[str, float]:
    """Harness evaluation, the call through the gateway, the bare call and the naive evaluation, on one moto
    server process."""
    lab = load_lab(LAB)
    with moto_process() as sandbox, WorkerPool(1) as pool:
        runner = Runner(lab, pool)
        context = ContextInput()

        def through_harness() -> None:
            answer = runner.evaluate("01.01", context, sandbox)
            assert answer.status == "pass", answer

        back_to_back_ms = median_ms(through_harness, runs)
        harness_ms = median_ms(through_harness, runs, pause_s=PAUSE_S)
        client = boto3.Session("testing", "testing", region_name=REGION).client(
            "ec2", endpoint_url=sandbox.endpoint_url
        )
        bare_ms = median_ms(client.describe_vpcs, runs)
        bare_paced_ms = median_ms(client.describe_vpcs, runs, pause_s=PAUSE_S)
        with Gateway() as gateway:
            link = GatewayLink()
            link.attach(gateway.socket_path, gateway.open(sandbox))
            gated = GatewaySession(link, REGION).client("ec2")
            calls = {"bare": client.describe_vpcs, "gateway": gated.describe_vpcs}
            paired = interleaved_medians(calls, runs)
            cpu = interleaved_cpu_ms(calls, runs)
        run = load_step(lab.steps["01.01"].module_path)
        spec_context = {"resolved": [], "events": [], "spec": lab.steps["01.01"].slice()}
        logger = logging.getLogger("bench")

        def naive() -> None:
            session = boto3.Session("testing", "testing", region_name=REGION)
            session.client = lambda name, **kw: boto3.Session.client(  # type: ignore[method-assign]
                session, name, endpoint_url=sandbox.endpoint_url, **kw
            )
            result = asyncio.run(run(session, spec_context, logger))
            assert result["success"]

        naive_ms = median_ms(naive, max(runs // 6, 20))
    return {
        "harness": harness_ms,
        "back to back": back_to_back_ms,
        "bare": bare_ms,
        "bare paced": bare_paced_ms,
        "gateway": paired["gateway"],
        "gateway bare": paired["bare"],
        "gateway cpu": cpu["gateway"] - cpu["bare"],
        "naive": naive_ms,
    }


def cold(runs: int) -> dict[str, float]:
    """`stepeval run` in a new process against a moto server, beside a bare boto3 process making the same call
    (and `python -c pass`), sampled in turn so that each sees the same machine."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    stepeval = str(Path(sys.executable).parent / "stepeval")
    command = [stepeval, "run", "01.01", "--lab", str(LAB), "--endpoint-url", f"http://{host}:{port}"]
    env = {**os.environ, "STEPEVAL_LOG_LEVEL": "WARNING"}

    def once(argv: list[str]) -> Callable[[], None]:
        return lambda: subprocess.run(argv, env=env, check=True, capture_output=True)

    bare = (
        f"import boto3; boto3.client('ec2', region_name='us-east-1', endpoint_url='http://{host}:{port}', "
        "aws_access_key_id='testing', aws_secret_access_key='testing').describe_vpcs()"
    )
    commands = {
        "stepeval run": command,
        "bare boto3": [sys.executable, "-c", bare],
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    try:
        medians = interleaved_medians({name: once(argv) for name, argv in commands.items()}, runs, warmup=1)
        return {name: ms / 1000 for name, ms in medians.items()}
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--runs", type=int, default=300, help="warm evaluations to time (default 300)")
    parser.add_argument("--cold-runs", type=int, default=11, help="cold stepeval runs to time (default 11)")
    parser.add_argument("--mode", choices=MODES, default="root", help="the sandbox's mode (as root: userns, none)")
    args = parser.parse_args()
    run_in_mode(args.mode, "bench")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH")])
    )
    console = results_console("overhead" if args.mode == "root" else f"overhead-{args.mode}")
    console.print(
        f"[bold]stepeval bench[/]: {args.runs} warm evaluations, {args.cold_runs} cold runs, {os.cpu_count()} cores"
    )
    w = warm(args.runs)
    harness_overhead = w["harness"] - w["bare paced"]
    back_to_back_overhead = w["back to back"] - w["bare"]
    naive_overhead = w["naive"] - w["bare"]
    ratio = naive_overhead / max(harness_overhead, 1e-3)
    c = cold(args.cold_runs)

    table = Table(title="Harness overhead per step (medians)")
    for column in ("measure", "value", "goal", "met"):
        table.add_column(column)
    rows = [
        ("bare describe_vpcs, warm client (moto server process)", f"{w['bare']:.2f} ms", "", ""),
        ("  ... each after a pause, as the evaluations a spare ready", f"{w['bare paced']:.2f} ms", "", ""),
        ("the same call through the read-only gateway", f"{w['gateway']:.2f} ms", "", ""),
        (
            "gateway's added latency per call (beside bare calls sampled in turn)",
            f"{w['gateway'] - w['gateway bare']:.2f} ms",
            "",
            "",
        ),
        ("  ... its CPU per call (client and gateway, minus bare)", f"{w['gateway cpu']:.2f} ms", "", ""),
        (
            "evaluation through the pool, a spare ready (a hook at a service not saturated)",
            f"{w['harness']:.2f} ms",
            "",
            "",
        ),
        (
            "the same, back to back (spares forked while evaluations run: CPU-bound)",
            f"{w['back to back']:.2f} ms",
            "",
            "",
        ),
        ("naive evaluation (fresh Session + client, inline)", f"{w['naive']:.2f} ms", "", ""),
        (
            "harness overhead, a spare ready (evaluation - bare, both after a pause)",
            f"{harness_overhead:.2f} ms",
            f"<= {GOAL_WARM_MS:g} ms",
            harness_overhead <= GOAL_WARM_MS,
        ),
        (
            "harness overhead, back to back (evaluation - bare, both back to back)",
            f"{back_to_back_overhead:.2f} ms",
            "",
            "",
        ),
        ("naive overhead (naive - bare)", f"{naive_overhead:.2f} ms", "", ""),
        ("naive overhead / harness overhead", f"{ratio:.0f}x", f">= {GOAL_RATIO:g}x", ratio >= GOAL_RATIO),
        ("python -c pass, wall", f"{c['python -c pass']:.3f} s", "", ""),
        ("bare boto3 process: import, client, one describe_vpcs", f"{c['bare boto3']:.3f} s", "", ""),
        ("stepeval run, cold, the same call through the harness", f"{c['stepeval run']:.3f} s", "", ""),
        (
            "stepeval run / bare boto3 process",
            f"{c['stepeval run'] / c['bare boto3']:.2f}x",
            f"<= {GOAL_COLD_RATIO}x",
            c["stepeval run"] / c["bare boto3"] <= GOAL_COLD_RATIO,
        ),
    ]
    for name, value, goal, met in rows:
        table.add_row(name, value, goal, "" if goal == "" else ("[green]yes[/]" if met else "[red]no[/]"))
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
