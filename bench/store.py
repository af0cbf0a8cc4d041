"""`python -m bench.store`: what the record store costs and what replay saves, beside same-run baselines.

1. Recording's cost to service latency: two `stepeval serve` processes on one moto server process, one without
   a store and one recording into SQLite, every AWS call delayed 50 ms (bench/service.py's delay); requests are
   sent to each in alternating blocks, a few in flight; the ratio of their p50 latencies. Goal: <= 1.10.
2. Replay of N recorded evaluations against evaluating them on moto, both through the same runner, gateway and
   pool (one evaluation process per core at once, and as many moto lanes): (ii) each recorded learner's state
   rebuilt on moto (a fresh copy of moto's empty accounts, forked, and the calls that made the state) and
   evaluated there, which is what judging a recorded evaluation without its recording takes; (iii) the same
   evaluations replayed from the store. Goal: replay >= 20x faster than (ii), on the sample lab. Two rows:
   - the sample web-tier lab (the repo root): each of its scenarios (the untouched account, every mistake, the
     solve, of every step) played once on moto and recorded, the recordings copied up to N; (ii) rebuilds every
     scenario's state (the earlier steps' solves, then its own calls) once, (ii') the same on moto servers after
     a reset (slower). What recorded evaluations are: real steps on learners' accounts, late steps on accounts of
     tens of resources.
   - bench/service.py's step (three EC2 describe calls on a VPC, a subnet and a security group), recorded N times
     live, (i), on one moto server; (ii) sampled. The smallest evaluation there is: the fixed cost of an
     evaluation process, which replay and moto pay alike, is most of it.
3. The floor under any replay that gives every evaluation a fresh process of its own (issue 9): N evaluations of a
   module that makes no AWS call and returns at once, through the same runner and pool, as many at once. (ii)
   divided by it is the most such a replay could reach on this machine, however cheap its answers from the
   recording were.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import math
import os
import secrets
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
from rich.table import Table
from sqlalchemy import Engine, select

from bench.common import (
    ROOT,
    bench_environment,
    results_console,
    sandbox_body,
    start_moto,
    start_service,
    stop,
    write_lab,
)
from bench.learner_states import Evaluated, Lanes, LearnerState, step_states
from bench.service import DELAY_ENV, SPEC, STEP_MODULE
from harness.authoring.lanes import moto_lanes
from harness.authoring.playthrough import ScenarioSession
from harness.commands.replay import replay
from harness.core.account import EMULATOR_CREDENTIALS, Account
from harness.core.contract import ContextInput, Handle
from harness.core.lab import Lab, load_lab
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner
from harness.service.webhooks import sign
from harness.store.engine import open_engine
from harness.store.evaluations import EvaluationRecorder, Retention
from harness.store.records import RecordStore
from harness.store.schema import evaluations


@dataclass(frozen=True)
class ReplayRow:
    """One lab's replay measurement: N recordings, (ii) per evaluation both ways, (iii) in all."""

    what: str
    recordings: int
    states: int
    forked_each_s: float  # (ii) on a fresh fork of moto's empty accounts
    reset_each_s: float  # (ii) on a plain moto server after a reset
    replay_s: float
    live_s: float | None = None  # (i), when the recordings were made live in this run


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.store", description=__doc__)
    parser.add_argument("--evaluations", type=int, default=1000, help="recorded evaluations to replay (1000)")
    parser.add_argument("--rebuild-samples", type=int, default=40, help="trivial step: states rebuilt (40)")
    parser.add_argument("--requests", type=int, default=200, help="requests to each service, latency part (200)")
    parser.add_argument("--delay-ms", type=float, default=50.0, help="simulated round trip per AWS call (50)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="evaluations at once (cores)")
    parser.add_argument("--skip-latency", action="store_true", help="only the replay rows")
    args = parser.parse_args()

    bench_environment()
    tmp = Path(tempfile.mkdtemp(prefix="stepeval-bench-store-"))
    console = results_console("store")
    load_before = os.getloadavg()[0]
    latency = None if args.skip_latency else recording_latency(tmp, args.requests, args.delay_ms)
    web_tier = lab_replay(load_lab(ROOT), tmp / "web-tier.db", args.evaluations, args.workers)
    trivial = trivial_replay(tmp, args.evaluations, args.rebuild_samples, args.workers)
    floor_each_s = fresh_process_floor(tmp, args.evaluations, args.workers)
    load_after = os.getloadavg()[0]

    table = Table(title=f"Record store ({os.cpu_count()} cores, {args.workers} at once, load {load_before:.1f}"
                  f" -> {load_after:.1f})")  # fmt: skip
    for column in ("measure", "value", "goal"):
        table.add_column(column)
    if latency is not None:
        p50_plain, p50_recording, bytes_each, file_each = latency
        table.add_row(f"service p50 latency, {args.delay_ms:g} ms per AWS call: no store", f"{p50_plain:.1f} ms", "")
        table.add_row("  ... recording into SQLite", f"{p50_recording:.1f} ms", "")
        table.add_row("  ... recording / no store", f"{p50_recording / p50_plain:.3f}", "<= 1.10")
        table.add_row("stored per evaluation (row content / SQLite file)", f"{bytes_each:.0f} / {file_each:.0f} B", "")
    for row, goal in ((web_tier, ">= 20x"), (trivial, "")):
        n = row.recordings
        table.add_row(f"[bold]{row.what}[/]: {n} recordings of {row.states} learner states", "", "")
        timed = [("(ii) each state rebuilt on a fork of moto's empty accounts, evaluated", row.forked_each_s * n),
                 ("(ii') ... on a moto server after a reset, evaluated", row.reset_each_s * n),
                 ("(iii) replayed from the store", row.replay_s)]  # fmt: skip
        if row.live_s is not None:
            timed.insert(0, ("(i) evaluated live on one moto server (recording them)", row.live_s))
        for what, seconds in timed:
            table.add_row(what, f"{seconds:.1f} s ({1000 * seconds / n:.1f} ms each)", "")
        table.add_row("  ... (ii) / (iii)", f"{row.forked_each_s * n / row.replay_s:.1f}x", goal)
        table.add_row("  ... (ii') / (iii)", f"{row.reset_each_s * n / row.replay_s:.1f}x", "")
        table.add_row("  ... (ii) / the floor below: the most a fresh process each allows",
                      f"{row.forked_each_s / floor_each_s:.1f}x", "")  # fmt: skip
    table.add_row("[bold]the floor[/]: a module making no AWS call, a fresh evaluation process each",
                  f"{1000 * floor_each_s:.1f} ms each", "")  # fmt: skip
    console.print(table)
    return 0


def recording_latency(tmp: Path, requests: int, delay_ms: float) -> tuple[float, float, float, float]:
    """Part 1: p50 latency without a store and recording into SQLite; bytes per evaluation (row, file)."""
    lab_dir = write_lab(tmp / "lab", SPEC, {"01_01": STEP_MODULE})
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    processes: list[subprocess.Popen] = []
    try:
        moto, moto_url = start_moto()
        processes.append(moto)
        os.environ[DELAY_ENV] = str(delay_ms)  # the services' gateways delay each AWS call (bench.service)

        def start_service_logged(name: str, *more: str) -> str:
            service, url = start_service(lab_dir, moto_url, tmp / f"{name}.log", secret, "--workers", "4", *more)
            processes.append(service)
            return url

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
        for n in range(requests // size):
            plain += asyncio.run(block(plain_url, size, f"plain-{n}"))
            recording += asyncio.run(block(recording_url, size, f"recording-{n}"))
        service_store = RecordStore(open_engine(store_url))
        bytes_each = service_store.bytes_per_evaluation()
        files = [tmp / "service.db", tmp / "service.db-wal"]  # WAL mode: recent rows are in the -wal file
        file_each = sum(f.stat().st_size for f in files if f.exists()) / max(service_store.count(), 1)
        service_store.engine.dispose()
    finally:
        os.environ.pop(DELAY_ENV, None)
        stop(*processes)
    return statistics.median(plain), statistics.median(recording), bytes_each, file_each


def lab_replay(lab: Lab, database: Path, evaluations_wanted: int, workers: int) -> ReplayRow:
    """The sample lab's row: every scenario's state recorded once (step by step: a step's handles come from the
    solve before it), rebuilt and evaluated again both ways for (ii), the recordings copied up to N and replayed
    for (iii)."""
    engine = open_engine(f"sqlite:///{database}")
    recorder = EvaluationRecorder(RecordStore(engine), lab, Retention(90, 10**6), source="cli")
    recorded: list[Evaluated] = []
    with moto_lanes(lab, workers) as lanes:
        forked = Lanes.forked(lanes)
        resolved: list[Handle] = []
        for step in step_states(lab):
            done = forked.evaluate(step, resolved, taps=recorder.tap)
            for evaluated, tap in done:
                assert tap is not None
                recorder.record(evaluated.state.step, None, lanes[0].account.region, evaluated.context,
                                evaluated.answer, tap)  # fmt: skip
            solve = done[-1][0]
            assert solve.answer.status == "pass", f"{solve.state.step} {solve.state.name}: {solve.answer.message}"
            recorded += [evaluated for evaluated, _ in done]
            resolved = [*resolved, *solve.answer.resolved]
        forked_each_s = rebuilt_each(forked, recorded)
        servers = [start_moto({**os.environ, **lab.spec.emulator.environment()}) for _ in range(workers)]
        try:
            sandboxes = [Account(EMULATOR_CREDENTIALS, lanes[0].account.region, url) for _, url in servers]
            reset_each_s = rebuilt_each(Lanes.reset(lanes[0].runner, sandboxes), recorded)
        finally:
            stop(*(server for server, _ in servers))
    copies = math.ceil(evaluations_wanted / len(recorded))
    copy_rows(engine, copies - 1)
    began = time.perf_counter()
    report = replay(lab, RecordStore(engine), workers=workers)
    replay_s = time.perf_counter() - began
    engine.dispose()
    n = copies * len(recorded)
    replayed = sum(tally.replayed for tally in report.steps.values())
    assert replayed == n and not report.changes and not report.corrupt, report.as_dict()
    return ReplayRow(
        "web-tier lab (repo root), every scenario", n, len(recorded), forked_each_s, reset_each_s, replay_s
    )


def rebuilt_each(lanes: Lanes, recorded: list[Evaluated]) -> float:
    """(ii): every recorded state rebuilt and evaluated with its recorded context, the lanes working through them
    all at once; seconds per state. Each must answer as recorded (the same state, the same ids)."""
    began = time.perf_counter()
    again = lanes.evaluate([e.state for e in recorded], contexts=[e.context for e in recorded])
    seconds = time.perf_counter() - began
    changed = [f"{e.state.step} {e.state.name}" for (e, _), r in zip(again, recorded, strict=True)
               if e.answer.status != r.answer.status]  # fmt: skip
    assert not changed, f"rebuilt states answered otherwise than recorded: {changed}"
    return seconds / len(recorded)


def copy_rows(engine: Engine, times: int) -> None:
    """Each recorded evaluation `times` more times (new ids, a moment later): N recordings of the same states."""
    with engine.begin() as connection:
        rows = [row._asdict() for row in connection.execute(select(evaluations))]
        for n in range(1, times + 1):
            copies = [{**row, "id": f"{row['id'][:28]}{n:04d}", "created_at": row["created_at"] + n} for row in rows]
            connection.execute(evaluations.insert(), copies)


def trivial_replay(tmp: Path, evaluations_wanted: int, samples: int, workers: int) -> ReplayRow:
    """bench/service.py's step: N evaluations live on one moto server, recorded (i); `samples` of them with the
    state rebuilt, both ways (ii); the N replayed (iii)."""
    lab = load_lab(write_lab(tmp / "trivial-lab", SPEC, {"01_01": STEP_MODULE}))
    engine = open_engine(f"sqlite:///{tmp / 'trivial.db'}")
    recorder = EvaluationRecorder(RecordStore(engine), lab, Retention(90, 10**6), source="cli")
    servers = [start_moto() for _ in range(workers)]
    state = LearnerState("01.01", "a VPC, a subnet, a security group", (), (three_resources,))
    try:
        with moto_lanes(lab, workers) as lanes:
            runner = lanes[0].runner
            sandbox = Account(EMULATOR_CREDENTIALS, "us-east-1", servers[0][1])
            three_resources(ScenarioSession(servers[0][1], sandbox), {})

            def live(_: int) -> None:
                tap = recorder.tap()
                answer = runner.evaluate("01.01", ContextInput(), sandbox, tap=tap)
                assert answer.status == "pass", answer
                recorder.record("01.01", None, "us-east-1", ContextInput(), answer, tap)

            live(0)
            with ThreadPoolExecutor(workers) as threads:
                began = time.perf_counter()
                list(threads.map(live, range(evaluations_wanted - 1)))
                live_s = (time.perf_counter() - began) * evaluations_wanted / (evaluations_wanted - 1)
            contexts = [ContextInput()] * samples
            each = {}
            sandboxes = [Account(EMULATOR_CREDENTIALS, "us-east-1", url) for _, url in servers]
            for name, way in (("forked", Lanes.forked(lanes)), ("reset", Lanes.reset(runner, sandboxes))):
                began = time.perf_counter()
                rebuilt = way.evaluate([state] * samples, contexts=contexts)
                each[name] = (time.perf_counter() - began) / samples
                assert all(evaluated.answer.status == "pass" for evaluated, _ in rebuilt)
    finally:
        stop(*(server for server, _ in servers))
    began = time.perf_counter()
    report = replay(lab, RecordStore(engine), workers=workers)
    replay_s = time.perf_counter() - began
    engine.dispose()
    tally = report.steps["01.01"]
    assert tally.replayed == evaluations_wanted and tally.unchanged == tally.replayed, report.as_dict()
    what = "bench/service.py's step (three EC2 describes)"
    return ReplayRow(what, evaluations_wanted, 1, each["forked"], each["reset"], replay_s, live_s)


NULL_MODULE = """
async def run(session, context, logger):
    entry = {"name": "01_01_vpc", "type": "AWS::EC2::VPC", "id": "vpc-0", "status": "found"}
    return {"validated": [entry], "success": True, "message": "nothing asked"}
"""


def fresh_process_floor(tmp: Path, evaluations: int, workers: int) -> float:
    """Part 3: seconds per evaluation of a module that makes no AWS call, `workers` at once, after a warm-up."""
    lab = load_lab(write_lab(tmp / "null-lab", SPEC, {"01_01": NULL_MODULE}))
    sandbox = Account(EMULATOR_CREDENTIALS, "us-east-1", "http://127.0.0.1:9")  # never called
    with WorkerPool(workers) as pool:
        runner = Runner(lab, pool)
        pool.start()

        def evaluate(_: int) -> None:
            answer = runner.evaluate("01.01", ContextInput(), sandbox)
            assert answer.status == "pass", answer

        with ThreadPoolExecutor(2 * workers) as threads:
            list(threads.map(evaluate, range(2 * workers)))
            began = time.perf_counter()
            list(threads.map(evaluate, range(evaluations)))
            return (time.perf_counter() - began) / evaluations


def three_resources(aws: object, handles: dict[str, str]) -> None:
    """The trivial step's learner state: a VPC, a subnet in it, a security group."""
    ec2 = aws.client("ec2")  # type: ignore[attr-defined]
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.1.0/24")
    ec2.create_security_group(GroupName="web", Description="web", VpcId=vpc)


if __name__ == "__main__":
    raise SystemExit(main())
