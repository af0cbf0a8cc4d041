"""`python -m bench.service`: evaluations per second through `stepeval serve`, beside two baselines.

Every AWS call takes a simulated 50 ms round trip (a sleep before botocore sends in this process, and before
the service's read-only gateway sends upstream, installed by importing this module with STEPEVAL_BENCH_DELAY_MS
set), against a moto server in its own process. The step makes three describe calls.

- service: signed HTTP requests to `stepeval serve`, CONCURRENCY at a time, through STS (cached), the worker
  pool and the contract check; p50/p99 latency; PSS of each template and evaluation process.
- (a) naive: a sequential loop, a fresh boto3 Session and client per evaluation, the module run inline.
- (b) ceiling: the three plain boto3 calls on one warm client, CONCURRENCY threads at a time.

Goals: service >= 10x (a), >= 75% of (b) (issue 11; issue 9's floor: 60%); PSS per evaluation process <= 150
MiB. Run with `make bench`.
"""

from __future__ import annotations

import os
import time
from typing import Any

DELAY_ENV = "STEPEVAL_BENCH_DELAY_MS"


def install_delay() -> None:
    """Sleep before every request sent to AWS, a simulated round trip: botocore's own sends (the baselines) and
    the read-only gateway's (the service: evaluation processes reach AWS only through it)."""
    import botocore.httpsession

    from harness.sandbox.gateway import GatewayHandler

    delay_s = float(os.environ[DELAY_ENV]) / 1000
    for owner, name in ((botocore.httpsession.URLLib3Session, "send"), (GatewayHandler, "open_upstream")):
        original = getattr(owner, name)
        if getattr(original, "_bench_delay", False):
            continue
        setattr(owner, name, _delayed(original, delay_s))


def _delayed(original: Any, delay_s: float) -> Any:
    def delayed(*args: Any, **kwargs: Any) -> Any:
        time.sleep(delay_s)
        return original(*args, **kwargs)

    delayed._bench_delay = True  # type: ignore[attr-defined]
    return delayed


if os.environ.get(DELAY_ENV):  # imported by the service process (bench.common.LAUNCH)
    install_delay()


STEP_MODULE = """
async def run(session, context, logger):
    ec2 = session.client("ec2")
    vpcs = ec2.describe_vpcs()["Vpcs"]
    subnets = ec2.describe_subnets()["Subnets"]
    groups = ec2.describe_security_groups()["SecurityGroups"]
    vpc = vpcs[0]["VpcId"]
    return {
        "validated": [{"name": "01_01_vpc", "type": "AWS::EC2::VPC", "id": vpc, "status": "found"}],
        "success": True,
        "message": f"{len(vpcs)} VPCs, {len(subnets)} subnets, {len(groups)} security groups",
    }
"""
SPEC = """project: bench-service
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs: [{name: 01_01_vpc, type: AWS::EC2::VPC}]
"""


def main() -> int:
    import argparse
    import asyncio
    import base64
    import contextlib
    import logging
    import secrets
    import statistics
    import subprocess
    import tempfile
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    import boto3
    import httpx
    from rich.console import Console
    from rich.table import Table

    from bench.common import bench_environment, sandbox_body, start_moto, start_service, stop, write_lab
    from harness.inside.loader import load_step
    from harness.service.webhooks import sign

    parser = argparse.ArgumentParser(prog="python -m bench.service", description=__doc__)
    parser.add_argument("--requests", type=int, default=1000, help="evaluations through the service (1000)")
    parser.add_argument("--concurrency", type=int, default=32, help="requests in flight at once (32)")
    parser.add_argument("--workers", type=int, default=32, help="service worker processes (32)")
    parser.add_argument("--naive-runs", type=int, default=20, help="evaluations in the naive loop (20)")
    parser.add_argument("--accounts", type=int, default=4, help="sandbox accounts the requests cycle through (4)")
    parser.add_argument("--delay-ms", type=float, default=50.0, help="simulated round trip per AWS call (50)")
    args = parser.parse_args()

    bench_environment()
    os.environ[DELAY_ENV] = str(args.delay_ms)
    install_delay()
    console = Console()
    tmp = Path(tempfile.mkdtemp(prefix="stepeval-bench-"))
    lab = write_lab(tmp / "lab", SPEC, {"01_01": STEP_MODULE})
    processes: list[subprocess.Popen] = []
    try:
        moto, moto_url = start_moto(env={k: v for k, v in os.environ.items() if k != DELAY_ENV})
        processes.append(moto)
        logging.getLogger("botocore").setLevel(logging.WARNING)

        # (b) the ceiling: plain boto3, warm client, CONCURRENCY threads
        ec2 = boto3.client("ec2", endpoint_url=moto_url, region_name="us-east-1")

        def three_calls(_: int) -> None:
            ec2.describe_vpcs()
            ec2.describe_subnets()
            ec2.describe_security_groups()

        with ThreadPoolExecutor(args.concurrency) as threads:
            list(threads.map(three_calls, range(args.concurrency)))  # warm
            started = time.perf_counter()
            list(threads.map(three_calls, range(args.requests)))
            ceiling = args.requests / (time.perf_counter() - started)

        # (a) naive: fresh Session and client per evaluation, sequential, module inline
        run = load_step(lab / "evaluation" / "boto3" / "01_01.py")
        logger = logging.getLogger("bench")

        class NaiveSession(boto3.Session):
            def client(self, *a, **kw):  # type: ignore[no-untyped-def, override]
                return super().client(*a, endpoint_url=moto_url, **kw)

        started = time.perf_counter()
        for _ in range(args.naive_runs):
            result = asyncio.run(run(NaiveSession(region_name="us-east-1"), {"resolved": [], "events": []}, logger))
            assert result["success"], result
        naive = args.naive_runs / (time.perf_counter() - started)

        # the service
        secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
        queue = str(max(args.concurrency * 2, 64))
        service, url = start_service(
            lab, moto_url, tmp / "service.log", secret, "--workers", str(args.workers), "--queue", queue
        )
        processes.append(service)
        accounts = [f"{n:012d}" for n in range(111111111111, 111111111111 + args.accounts)]

        def body(index: int) -> bytes:
            return sandbox_body(accounts[index % len(accounts)])

        async def load(count: int, offset: int) -> tuple[float, list[float]]:
            latencies: list[float] = []
            gate = asyncio.Semaphore(args.concurrency)
            limits = httpx.Limits(max_connections=args.concurrency)
            async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:

                async def one(index: int) -> None:
                    raw = body(index)
                    headers = {**sign(secret, f"bench-{offset + index}", raw), "content-type": "application/json"}
                    async with gate:
                        began = time.perf_counter()
                        response = await client.post("/v1/evaluations", content=raw, headers=headers)
                        latencies.append(time.perf_counter() - began)
                    answer = response.json()
                    assert response.status_code == 200 and answer["status"] == "pass", answer

                began = time.perf_counter()
                await asyncio.gather(*(one(i) for i in range(count)))
                return time.perf_counter() - began, latencies

        asyncio.run(load(args.concurrency * 2, 10**6))  # warm: every worker up, every role assumed once
        wall, latencies = asyncio.run(load(args.requests, 0))
        through_service = args.requests / wall
        latencies_ms = sorted(x * 1000 for x in latencies)
        p50 = statistics.median(latencies_ms)
        p99 = latencies_ms[max(int(len(latencies_ms) * 0.99) - 1, 0)]

        def rss_mib(pid: int, field: str = "VmRSS:", where: str = "status") -> float:
            for line in Path(f"/proc/{pid}/{where}").read_text().splitlines():
                if line.startswith(field):
                    return int(line.split()[1]) / 1024
            return 0.0

        workers = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                    cmdline = (entry / "cmdline").read_bytes()
                except OSError:
                    continue
                if b"harness.sandbox.template" in cmdline and stat:  # the template and its evaluation processes
                    with contextlib.suppress(OSError):  # proportional: pages shared with the template count once
                        workers.append(rss_mib(int(entry.name), "Pss:", "smaps_rollup"))
        service_rss = rss_mib(service.pid)
    finally:
        stop(*processes)

    goals = [
        (through_service >= 10 * naive, f">= 10x (a) = {10 * naive:.1f}/s"),
        (through_service >= 0.75 * ceiling, f">= 75% of (b) = {0.75 * ceiling:.1f}/s"),
        (max(workers, default=0) <= 150, "<= 150 MiB"),
    ]
    table = Table(title=f"Service throughput: 3 describe calls/step, {args.delay_ms:g} ms per AWS call, "
                  f"{args.concurrency} concurrent, {args.workers} workers, {os.cpu_count()} cores")  # fmt: skip
    for column in ("measure", "value", "goal", "met"):
        table.add_column(column)

    def met(ok: bool) -> str:
        return "[green]yes[/]" if ok else "[red]no[/]"

    table.add_row("(a) naive sequential loop (fresh Session + client)", f"{naive:.1f} evals/s", "", "")
    table.add_row("(b) ceiling: plain boto3 calls, thread pool", f"{ceiling:.1f} evals/s", "", "")
    table.add_row("through the service", f"{through_service:.1f} evals/s", goals[0][1], met(goals[0][0]))
    table.add_row("  ... as a share of (b)", f"{through_service / ceiling:.0%}", goals[1][1], met(goals[1][0]))
    table.add_row("  ... as a multiple of (a)", f"{through_service / naive:.1f}x", "", "")
    table.add_row("latency under load, p50 / p99", f"{p50:.0f} / {p99:.0f} ms", "", "")
    table.add_row(
        f"PSS per template/evaluation process, max / mean of {len(workers)}",
        f"{max(workers, default=0):.0f} / {statistics.mean(workers or [0]):.0f} MiB",
        goals[2][1],
        met(goals[2][0]),
    )
    table.add_row("RSS of the service process", f"{service_rss:.0f} MiB", "", "")
    console.print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
