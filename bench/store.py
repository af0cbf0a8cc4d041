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
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import boto3
import httpx
from rich.console import Console
from rich.table import Table

from bench.common import bench_environment
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
    lab_dir = tmp / "lab"
    (lab_dir / "specs").mkdir(parents=True)
    (lab_dir / "evaluation" / "boto3").mkdir(parents=True)
    (lab_dir / "specs" / "bench.yaml").write_text(SPEC)
    (lab_dir / "evaluation" / "boto3" / "01_01.py").write_text(STEP_MODULE)
    lab = load_lab(lab_dir)
    console = Console()
    processes: list[subprocess.Popen] = []

    def wait_for(url: str) -> None:
        for _ in range(1200):
            try:
                with urllib.request.urlopen(url, timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise SystemExit(f"{url} did not answer")

    def start_service(name: str, *more: str) -> str:
        log_path = tmp / f"{name}.log"
        launch = "import sys, bench.service; from harness.cli import main; sys.exit(main(sys.argv[1:]))"
        env = {**os.environ, "STEPEVAL_WEBHOOK_SECRET": secret, DELAY_ENV: str(args.delay_ms)}
        with log_path.open("wb") as log:
            command = [sys.executable, "-c", launch, "serve", "--lab", str(lab_dir), "--port", "0",
                       "--endpoint-url", moto_url, "--workers", "4", *more]  # fmt: skip
            processes.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env))
        for _ in range(1200):
            lines = [json.loads(x) for x in log_path.read_text().splitlines() if x.startswith('{"')]
            url = next((x["url"] for x in lines if x.get("event") == "listening"), None)
            if url:
                wait_for(f"{url}/readyz")
                return url
            time.sleep(0.05)
        raise SystemExit(f"{name} did not start: {log_path.read_text()}")

    secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    try:
        with socket.socket() as probe:  # a port nothing listens on now
            probe.bind(("127.0.0.1", 0))
            moto_port = probe.getsockname()[1]
        moto_url = f"http://127.0.0.1:{moto_port}"
        processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(moto_port)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        wait_for(f"{moto_url}/moto-api/")

        # 1. latency with and without recording
        plain_url = start_service("plain")
        store_url = f"sqlite:///{tmp / 'service.db'}"
        recording_url = start_service("recording", "--store", store_url)
        body = json.dumps(
            {"step": "01.01", "sandbox": {"account_id": "111111111111", "region": "us-east-1",
             "role_arn": "arn:aws:iam::111111111111:role/stepeval-evaluator", "external_id": "bench-ext"}}
        ).encode()  # fmt: skip

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
        for process in processes[1:]:
            process.terminate()
            process.wait(timeout=15)
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
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()

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
