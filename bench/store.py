"""`python -m bench.store`: what the record store costs and what replay saves, beside same-run baselines.

1. Recording's cost to service latency: two `stepeval serve` processes on one moto server process, one without
   a store and one recording into SQLite, every AWS call delayed 50 ms (bench/service.py's delay); requests are
   sent to each in alternating blocks, a few in flight; the ratio of their p50 latencies. Goal: <= 1.10.
2. Replay of N recorded evaluations against evaluating them on moto, both through the same runner, gateway
   and 2 workers: (i) evaluated live on the moto server (what was recorded), (ii) the same with each learner's
   state rebuilt first (moto reset + the resources made again), which is what checking recorded learner states
   on moto takes, sampled; (iii) replayed from the store. Goal: replay >= 20x faster than (ii).
The step is bench/service.py's: three EC2 describe calls.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import secrets
import statistics
import subprocess
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import boto3
import httpx
from rich.console import Console
from rich.table import Table

from bench.common import bench_environment, sandbox_body, start_moto, start_service, stop, write_lab
from bench.service import DELAY_ENV, SPEC, STEP_MODULE
from harness.account import EMULATOR_CREDENTIALS, SandboxSpec
from harness.contract import ContextInput
from harness.lab import load_lab
from harness.pool import WorkerPool
from harness.runner import Runner
from harness.service.webhooks import sign
from harness.store.engine import open_engine
from harness.store.records import RecordStore
from harness.store.replay import replay
from harness.store.service import EvaluationRecorder, Retention


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.store", description=__doc__)
    parser.add_argument("--evaluations", type=int, default=1000, help="recorded evaluations to replay (1000)")
    parser.add_argument("--rebuild-samples", type=int, default=40, help="evaluations with the state rebuilt (40)")
    parser.add_argument("--requests", type=int, default=200, help="requests to each service, latency part (200)")
    parser.add_argument("--delay-ms", type=float, default=50.0, help="simulated round trip per AWS call (50)")
    args = parser.parse_args()

    bench_environment()
    tmp = Path(tempfile.mkdtemp(prefix="stepeval-bench-store-"))
    lab_dir = write_lab(tmp / "lab", SPEC, {"01_01": STEP_MODULE})
    lab = load_lab(lab_dir)
    console = Console()
    processes: list[subprocess.Popen] = []

    def start_service_logged(name: str, *more: str) -> str:
        service, url = start_service(lab_dir, moto_url, tmp / f"{name}.log", secret, "--workers", "4", *more)
        processes.append(service)
        return url

    secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    try:
        moto, moto_url = start_moto()
        processes.append(moto)
        os.environ[DELAY_ENV] = str(args.delay_ms)  # the services' gateways delay each AWS call (bench.service)

        # 1. latency with and without recording
        plain_url = start_service_logged("plain")
        store_url = f"sqlite:///{tmp / 'service.db'}"
        recording_url = start_service_logged("recording", "--store", store_url)
        body = sandbox_body("111111111111")

        async def block(url: str, count: int, tag: str) -> list[float]:
            latencies: list[float] = []
            gate = asyncio.Semaphore(4)
            async with httpx.AsyncClient(base_url=url, timeout=120) as client:

                async def one(i: int) -> None:
                    headers = {**sign(secret, f"{tag}-{i}", body), "content-type": "application/json"}
                    async with gate:
                        began = time.perf_counter()
                        answer = await client.post("/v1/evaluations", content=body, headers=headers)
                        latencies.append((time.perf_counter() - began) * 1000)
                    assert answer.status_code == 200 and answer.json()["status"] == "pass", answer.text

                await asyncio.gather(*(one(i) for i in range(count)))
            return latencies

        plain: list[float] = []
        recording: list[float] = []
        asyncio.run(block(plain_url, 8, "warm-plain"))
        asyncio.run(block(recording_url, 8, "warm-recording"))
        size = 25
        for n in range(args.requests // size):
            plain += asyncio.run(block(plain_url, size, f"plain-{n}"))
            recording += asyncio.run(block(recording_url, size, f"recording-{n}"))
        p50_plain, p50_recording = statistics.median(plain), statistics.median(recording)
        latency_ratio = p50_recording / p50_plain
        service_store = RecordStore(open_engine(store_url))
        bytes_each = service_store.bytes_per_evaluation()
        files = [tmp / "service.db", tmp / "service.db-wal"]  # WAL mode: recent rows are in the -wal file
        file_each = sum(f.stat().st_size for f in files if f.exists()) / max(service_store.count(), 1)
        service_store.engine.dispose()
        stop(*processes[1:])
        del processes[1:]

        # 2. replay against evaluating on moto
        os.environ.pop(DELAY_ENV, None)
        replay_url = f"sqlite:///{tmp / 'replay.db'}"
        engine = open_engine(replay_url)
        recorder = EvaluationRecorder(RecordStore(engine), lab, Retention(90, 10**6), source="cli")
        sandbox = SandboxSpec(EMULATOR_CREDENTIALS, "us-east-1", moto_url)
        ec2 = boto3.client("ec2", endpoint_url=moto_url, region_name="us-east-1")

        def rebuild_state() -> None:
            with urllib.request.urlopen(urllib.request.Request(f"{moto_url}/moto-api/reset", method="POST")):
                pass
            vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
            ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.1.0/24")
            ec2.create_security_group(GroupName="web", Description="web", VpcId=vpc)

        with WorkerPool(2) as pool:
            pool.start()
            runner = Runner(lab, pool)

            def live(_: int) -> None:
                tap = recorder.tap()
                answer = runner.evaluate("01.01", ContextInput(), sandbox, tap=tap)
                assert answer.status == "pass", answer
                recorder.record("01.01", None, "us-east-1", ContextInput(), answer, tap)

            rebuild_state()
            live(0)
            with ThreadPoolExecutor(2) as threads:
                began = time.perf_counter()
                list(threads.map(live, range(args.evaluations)))
                live_s = time.perf_counter() - began
            began = time.perf_counter()
            for _ in range(args.rebuild_samples):
                rebuild_state()
                assert runner.evaluate("01.01", ContextInput(), sandbox).status == "pass"
            rebuilt_each_s = (time.perf_counter() - began) / args.rebuild_samples
        began = time.perf_counter()
        report = replay(lab, RecordStore(engine), workers=2)
        replay_s = time.perf_counter() - began
        engine.dispose()
        tally = report.steps["01.01"]
        assert tally.replayed == args.evaluations + 1 and tally.unchanged == tally.replayed, report.as_dict()
    finally:
        stop(*processes)

    n = args.evaluations + 1
    rebuilt_s = rebuilt_each_s * n
    table = Table(title=f"Record store ({os.cpu_count()} cores)")
    for column in ("measure", "value", "goal"):
        table.add_column(column)
    table.add_row(f"service p50 latency, {args.delay_ms:g} ms per AWS call: no store", f"{p50_plain:.1f} ms", "")
    table.add_row("  ... recording into SQLite", f"{p50_recording:.1f} ms", "")
    table.add_row("  ... recording / no store", f"{latency_ratio:.3f}", "<= 1.10")
    table.add_row("stored per evaluation (row content / SQLite file)", f"{bytes_each:.0f} / {file_each:.0f} B", "")
    table.add_row(f"(i) {n} evaluations live on moto", f"{live_s:.1f} s ({1000 * live_s / n:.1f} ms each)", "")
    table.add_row(f"(ii) with the state rebuilt first ({args.rebuild_samples} sampled)",
                  f"{rebuilt_s:.1f} s ({1000 * rebuilt_each_s:.1f} ms each)", "")  # fmt: skip
    table.add_row(f"(iii) replay of the {n} recorded", f"{replay_s:.1f} s ({1000 * replay_s / n:.1f} ms each)", "")
    table.add_row("  ... (ii) / (iii)", f"{rebuilt_s / replay_s:.1f}x", ">= 20x")
    table.add_row("  ... (i) / (iii)", f"{live_s / replay_s:.1f}x", "")
    console.print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
