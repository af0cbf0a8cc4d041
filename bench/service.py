"""`python -m bench.service`: evaluations per second through `stepeval serve` with its DEFAULT settings (workers
and queue sized by the machine, harness/sandbox/capacity.py), beside two baselines, at 50 and at 100 ms per call.

Every AWS call takes a simulated round trip (a sleep before botocore sends in this process, and before the
service's read-only gateway sends upstream, installed by importing this module with STEPEVAL_BENCH_DELAY_MS
set), against a moto server in its own process, which keeps its connections alive as AWS does (`--moto closing`:
moto's own server, which closes each after its answer). `--aws replay`: against bench/replay.py's stand-in instead,
which answers each request with moto's answer to it, recorded while the service and the ceiling warm up (moto is
stopped before the measures): AWS's own CPU is not on the machine in production, and moto's ~9 ms per evaluation
is on it here. Every answer's verdict is checked against moto's for its account (the warm-up's). The step makes
three describe calls. For each delay:

- service: signed HTTP requests to `stepeval serve`, CONCURRENCY at a time, through STS (cached), the worker
  pool and the contract check; p50/p99 latency; every status other than 200 counted (429, 5xx); PSS of each
  template and evaluation process.
- (a) naive: a sequential loop, a fresh boto3 Session and client per evaluation, the module run inline.
- (b) ceiling: the three plain boto3 calls on one warm client, CONCURRENCY threads at a time, measured just
  before the service in the same run (the machine is shared: only ratios of one run mean anything).
- CPU per evaluation by process (moto, the load, the service, its templates, the evaluation processes), for the
  service and for (b): where the service's CPU goes, and on a machine it saturates, what bounds its rate; beside
  it the whole machine's busy CPU per evaluation (/proc/stat): what else ran on the cores meanwhile.
- beside hanging modules (at the last delay): HANGING requests whose module blocks until its timeout, then
  CONCURRENCY good ones in flight while they hang: the slowest good answer.

Goals (issue 24): with default settings, service >= 75% of (b) at 100 ms with no 429 and no 5xx (and >= 10x
(a)); good hooks beside hanging ones answered in < 3 s; PSS per evaluation process <= 150 MiB. Issue 33: <= 35 ms
of CPU per evaluation on the service's path (the service process, its templates and evaluation processes: not the
emulator, not the load), in the same run as the ceiling, and >= 60% of (b) at 100 ms. `--workers N`
measures a configured service instead (the title says which). Run with `make bench`.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass
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
HANGING_MODULE = """
import time


async def run(session, context, logger):
    time.sleep(3600)  # blocks its process: only the timeout ends it
"""
HANG_TIMEOUT_S = 10
SPEC = f"""project: bench-service
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs: [{{name: 01_01_vpc, type: AWS::EC2::VPC}}]
      - id: "02"
        timeout: {HANG_TIMEOUT_S}
        outputs: [{{name: 01_02_vpc, type: AWS::EC2::VPC}}]
"""
GOOD_BESIDE_HANGING_S = 3.0
SERVICE_PATH = ("service process", "templates (forking)", "evaluation processes")  # not the emulator, not the load
GOAL_SERVICE_PATH_CPU_MS = 35.0  # issue 33: CPU per evaluation on the service's own path


@dataclass
class Measured:
    """One delay's figures: the baselines, the service, and what the service refused or failed."""

    delay_ms: float
    naive: float
    ceiling: float
    service: float
    p50_ms: float
    p99_ms: float
    refused: Counter[int]
    pss_mib: list[float]
    service_rss_mib: float
    capacity: dict[str, Any]
    cpu_ms: dict[str, float]  # CPU per evaluation through the service, by process (`cpu_by_role`)
    ceiling_cpu_ms: dict[str, float]  # the same for the ceiling (moto and this process's threads)
    machine_ms: tuple[float, float]  # the whole machine's busy CPU per evaluation: the service's run, the ceiling's
    stand_in: str  # what answered as AWS
    verdicts_checked: int  # answers compared with moto's answer for their account
    good_beside_hanging_s: float | None = None


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bench.service", description=__doc__)
    parser.add_argument("--requests", type=int, default=1000, help="evaluations through the service (1000)")
    parser.add_argument("--concurrency", type=int, default=32, help="requests in flight at once (32)")
    parser.add_argument("--workers", type=int, help="service workers (default: the service's own default)")
    parser.add_argument("--naive-runs", type=int, default=10, help="evaluations in the naive loop (10)")
    parser.add_argument("--accounts", type=int, default=4, help="sandbox accounts the requests cycle through (4)")
    parser.add_argument("--delays-ms", default="50,100", help="simulated round trips per AWS call (50,100)")
    parser.add_argument("--hanging", type=int, default=4, help="hanging modules beside the good hooks (4)")
    parser.add_argument(
        "--moto", choices=("kept-alive", "closing"), default="kept-alive",
        help="moto's connections: kept alive between requests as AWS keeps them (the default), or closed after each "
        "answer as moto's own server does",
    )  # fmt: skip
    parser.add_argument(
        "--aws", choices=("moto", "replay"), default="moto",
        help="what answers as AWS: moto (the default), or bench/replay.py's stand-in replaying moto's answers, "
        "recorded at the start (moto kept alive), at almost no CPU",
    )  # fmt: skip
    args = parser.parse_args()

    from bench.common import results_console

    console = results_console("service" if args.aws == "moto" else "service-replay")
    delays = [float(x) for x in args.delays_ms.split(",") if x.strip()]
    runs = [measure(args, delay, hanging=args.hanging if delay == delays[-1] else 0) for delay in delays]
    for run in runs:
        console.print(table(args, run))
    return 0


def measure(args: Any, delay_ms: float, *, hanging: int) -> Measured:
    """The service warmed (and with `--aws replay`, the stand-in's recording ended), then the baselines and the
    service at `delay_ms` per AWS call, all in this run; then, if `hanging`, the good hooks' slowest answer while
    that many modules hang."""
    import asyncio
    import base64
    import logging
    import secrets
    import statistics
    import subprocess
    import tempfile
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    import boto3
    import httpx

    from bench import replay
    from bench.common import bench_environment, sandbox_body, start_moto, start_service, stop, write_lab
    from harness.inside.loader import load_step
    from harness.service.webhooks import sign

    bench_environment()
    os.environ[DELAY_ENV] = str(delay_ms)
    install_delay()
    tmp = Path(tempfile.mkdtemp(prefix="stepeval-bench-"))
    lab = write_lab(tmp / "lab", SPEC, {"01_01": STEP_MODULE, "01_02": HANGING_MODULE})
    processes: list[subprocess.Popen] = []
    try:
        aws_env = {k: v for k, v in os.environ.items() if k != DELAY_ENV}
        moto, aws_url = start_moto(env=aws_env, kept_alive=args.aws == "replay" or args.moto == "kept-alive")
        processes.append(moto)
        aws, stand_in = moto, f"moto ({'kept alive' if args.moto == 'kept-alive' else 'closing'})"
        if args.aws == "replay":
            aws, aws_url = replay.start(aws_url, env=aws_env)
            processes.append(aws)
        logging.getLogger("botocore").setLevel(logging.WARNING)

        # the service, with its default settings unless --workers
        secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
        configured = ["--workers", str(args.workers)] if args.workers else []
        service, url = start_service(lab, aws_url, tmp / "service.log", secret, *configured)
        processes.append(service)
        capacity = httpx.get(f"{url}/readyz").json()
        accounts = [f"{n:012d}" for n in range(111111111111, 111111111111 + args.accounts)]
        refused: Counter[int] = Counter()
        expected: dict[str, dict[str, Any]] = {}  # each account's verdict, as moto's answers made it (the warm-up)
        checked = Counter[str]()

        async def load(count: int, offset: int, step: str = "01.01", warm: bool = False) -> tuple[float, list[float]]:
            latencies: list[float] = []
            gate = asyncio.Semaphore(args.concurrency)
            limits = httpx.Limits(max_connections=args.concurrency + args.hanging)
            async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:

                async def one(index: int) -> None:
                    account = accounts[index % len(accounts)]
                    raw = sandbox_body(account, step)
                    headers = {**sign(secret, f"bench-{offset + index}", raw), "content-type": "application/json"}
                    async with gate:
                        began = time.perf_counter()
                        response = await client.post("/v1/evaluations", content=raw, headers=headers)
                        latencies.append(time.perf_counter() - began)
                    if response.status_code != 200:
                        refused[response.status_code] += 1
                    elif step != "01.01":
                        assert response.json()["status"] == "error", response.text
                    else:
                        said = verdict(response.json())
                        assert said["status"] == "pass", response.text
                        assert said == (expected.setdefault(account, said) if warm else expected[account]), said
                        checked["warm" if warm else "measured"] += 1

                began = time.perf_counter()
                await asyncio.gather(*(one(i) for i in range(count)))
                return time.perf_counter() - began, latencies

        asyncio.run(load(args.concurrency * 2, 10**6, warm=True))  # every role assumed once, spares in use
        refused.clear()
        ec2 = boto3.client("ec2", endpoint_url=aws_url, region_name="us-east-1")

        def three_calls(_: int) -> None:
            ec2.describe_vpcs()
            ec2.describe_subnets()
            ec2.describe_security_groups()

        three_calls(0)  # the ceiling's and the naive loop's requests, recorded
        if args.aws == "replay":
            stand_in = f"replay of {replay.replay(aws_url)} answers recorded from moto (kept alive), moto stopped"
            stop(moto)
            processes.remove(moto)

        # (a) naive: fresh Session and client per evaluation, sequential, module inline
        run = load_step(lab / "evaluation" / "boto3" / "01_01.py")
        logger = logging.getLogger("bench")

        class NaiveSession(boto3.Session):
            def client(self, *a, **kw):  # type: ignore[no-untyped-def, override]
                return super().client(*a, endpoint_url=aws_url, **kw)

        started = time.perf_counter()
        for _ in range(args.naive_runs):
            result = asyncio.run(run(NaiveSession(region_name="us-east-1"), {"resolved": [], "events": []}, logger))
            assert result["success"], result
        naive = args.naive_runs / (time.perf_counter() - started)

        # (b) the ceiling: plain boto3, warm client, CONCURRENCY threads; just before the service, same machine
        with ThreadPoolExecutor(args.concurrency) as threads:
            list(threads.map(three_calls, range(args.concurrency)))  # warm
            before, busy = cpu_by_role(aws.pid, None, args.aws), machine_busy_s()
            started = time.perf_counter()
            list(threads.map(three_calls, range(args.requests)))
            ceiling = args.requests / (time.perf_counter() - started)
            ceiling_cpu = per_evaluation(before, cpu_by_role(aws.pid, None, args.aws), args.requests)
            ceiling_machine = (machine_busy_s() - busy) * 1000 / args.requests

        before, busy = cpu_by_role(aws.pid, service.pid, args.aws), machine_busy_s()
        wall, latencies = asyncio.run(load(args.requests, 0))
        cpu = per_evaluation(before, cpu_by_role(aws.pid, service.pid, args.aws), args.requests)
        machine = (machine_busy_s() - busy) * 1000 / args.requests
        latencies_ms = sorted(x * 1000 for x in latencies)
        p99 = latencies_ms[max(int(len(latencies_ms) * 0.99) - 1, 0)]
        good_beside_hanging = beside_hanging(load, args.concurrency, hanging) if hanging else None
        pss = [mib for pid in template_family(service.pid) if (mib := proc_mib(pid, "Pss:", "smaps_rollup"))]
        service_rss = proc_mib(service.pid, "VmRSS:", "status") or 0.0
    finally:
        stop(*processes)
    return Measured(
        delay_ms, naive, ceiling, args.requests / wall, statistics.median(latencies_ms), p99, refused, pss,
        service_rss, capacity, cpu, ceiling_cpu, (machine, ceiling_machine), stand_in, checked["measured"],
        good_beside_hanging,
    )  # fmt: skip


def verdict(answer: dict[str, Any]) -> dict[str, Any]:
    """What an answer says, its timings, ids and lab version aside: the status, message and resources, and each AWS
    call's operation and status (moto's answers and the stand-in's must make the same)."""
    calls = (answer.get("diagnostics") or {}).get("operations") or []
    said = {key: answer.get(key) for key in ("status", "success", "message", "validated", "error", "resolved")}
    return said | {"operations": [{k: v for k, v in call.items() if k != "ms"} for call in calls]}


def cpu_by_role(aws_pid: int, service_pid: int | None, aws: str = "moto") -> dict[str, float]:
    """CPU seconds used so far by what answers as AWS (`aws`: moto, or the replaying stand-in), this process (the
    load or the ceiling's threads) and, given the service, by the service process, its templates and the
    evaluation processes they forked and reaped (their children's time): where an evaluation's CPU goes."""
    import resource

    ticks = os.sysconf("SC_CLK_TCK")

    def used(pid: int, children: bool = False) -> float:
        try:
            fields = _stat(pid)
        except OSError:
            return 0.0
        first = 13 if children else 11  # cutime, cstime / utime, stime (after the command's name)
        return (int(fields[first]) + int(fields[first + 1])) / ticks

    own = resource.getrusage(resource.RUSAGE_SELF)
    role = "emulator (moto)" if aws == "moto" else "stand-in (replay)"
    roles = {role: used(aws_pid), "load (this process)": own.ru_utime + own.ru_stime}
    if service_pid is not None:
        templates = [pid for pid in template_family(service_pid) if _parent(pid) == service_pid]
        roles["service process"] = used(service_pid)
        roles["templates (forking)"] = sum(used(pid) for pid in templates)
        roles["evaluation processes"] = sum(used(pid, children=True) for pid in templates)
    return roles


def machine_busy_s() -> float:
    """CPU seconds the whole machine has been busy (/proc/stat: every process, the kernel's own work, other users'):
    beside the roles' sum, how much of the cores the run did not have."""
    from pathlib import Path

    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # less idle and iowait


def _parent(pid: int) -> int | None:
    try:
        return int(_stat(pid)[1])
    except OSError:
        return None


def _stat(pid: int) -> list[str]:
    """/proc/PID/stat's fields after the command's name (state first)."""
    from pathlib import Path

    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def per_evaluation(before: dict[str, float], after: dict[str, float], evaluations: int) -> dict[str, float]:
    """Milliseconds of CPU per evaluation by role between two `cpu_by_role` readings."""
    return {role: (after[role] - before[role]) * 1000 / evaluations for role in after}


def beside_hanging(load: Any, concurrency: int, hanging: int) -> float:
    """The slowest of CONCURRENCY good hooks sent once HANGING requests are in (their modules block until their
    step's timeout): what a hanging evaluation costs the others (goal: only the admission it takes)."""
    import asyncio

    async def both() -> float:
        stuck = asyncio.ensure_future(load(hanging, 2 * 10**6, "01.02"))
        await asyncio.sleep(1.0)  # the hanging ones are running
        _, good = await load(concurrency, 3 * 10**6)
        await stuck
        return max(good)

    return asyncio.run(both())


def template_family(service_pid: int) -> list[int]:
    """This service's template processes and the evaluation processes they forked: its descendants only (other
    services on a shared machine run templates of their own)."""
    from pathlib import Path

    found, todo = [], [service_pid]
    while todo:
        pid = todo.pop()
        try:
            tasks = list(Path(f"/proc/{pid}/task").iterdir())
        except OSError:  # it ended while we looked (an evaluation process answered meanwhile)
            continue
        for task in tasks:
            try:
                children = [int(child) for child in (task / "children").read_text().split()]
            except OSError:
                continue
            todo += children
            for child in children:
                try:
                    if b"harness.sandbox.template" in Path(f"/proc/{child}/cmdline").read_bytes():
                        found.append(child)
                except OSError:
                    continue
    return found


def proc_mib(pid: int, field: str, where: str) -> float | None:
    """A /proc/PID/WHERE field in MiB (PSS: proportional, pages shared with the template count once)."""
    from pathlib import Path

    try:
        for line in Path(f"/proc/{pid}/{where}").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def table(args: Any, run: Measured) -> Any:
    import statistics

    from rich.table import Table

    settings = f"{args.workers} workers (set)" if args.workers else (
        f"DEFAULT settings: {run.capacity.get('workers')} workers, {run.capacity.get('queue_limit')} waiting, "
        f"sized by {run.capacity.get('sized_by')}"
    )  # fmt: skip
    share = run.service / run.ceiling
    refusals = ", ".join(f"{n} x {code}" for code, n in sorted(run.refused.items())) or "none"
    goals = [
        (run.service >= 10 * run.naive, f">= 10x (a) = {10 * run.naive:.1f}/s"),
        (share >= 0.75, f">= 75% of (b) = {0.75 * run.ceiling:.1f}/s"),
        (not run.refused, "no 429, no 5xx"),
        (max(run.pss_mib, default=0) <= 150, "<= 150 MiB"),
    ]
    title = (
        f"Service throughput: 3 describe calls/step, {run.delay_ms:g} ms per AWS call, {args.concurrency} in flight,"
        f" {settings}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; AWS: {run.stand_in}"
    )
    out = Table(title=title)
    for column in ("measure", "value", "goal", "met"):
        out.add_column(column)

    def met(ok: bool) -> str:
        return "[green]yes[/]" if ok else "[red]no[/]"

    out.add_row("(a) naive sequential loop (fresh Session + client)", f"{run.naive:.1f} evals/s", "", "")
    out.add_row("(b) ceiling: plain boto3 calls, thread pool", f"{run.ceiling:.1f} evals/s", "", "")
    out.add_row("through the service", f"{run.service:.1f} evals/s", goals[0][1], met(goals[0][0]))
    out.add_row("  ... as a share of (b)", f"{share:.0%}", goals[1][1], met(goals[1][0]))
    out.add_row("  ... as a multiple of (a)", f"{run.service / run.naive:.1f}x", "", "")
    out.add_row("  ... answers other than 200", refusals, goals[2][1], met(goals[2][0]))
    out.add_row("  ... verdicts as moto's for their account", f"{run.verdicts_checked} of {args.requests}", "", "")
    out.add_row("latency under load, p50 / p99", f"{run.p50_ms:.0f} / {run.p99_ms:.0f} ms", "", "")
    if run.good_beside_hanging_s is not None:
        ok = run.good_beside_hanging_s < GOOD_BESIDE_HANGING_S
        out.add_row(
            f"slowest of {args.concurrency} good hooks beside {args.hanging} hanging modules",
            f"{run.good_beside_hanging_s:.2f} s",
            f"< {GOOD_BESIDE_HANGING_S:g} s",
            met(ok),
        )
    out.add_row(
        f"PSS per template/evaluation process, max / mean of {len(run.pss_mib)}",
        f"{max(run.pss_mib, default=0):.0f} / {statistics.mean(run.pss_mib or [0]):.0f} MiB",
        goals[3][1],
        met(goals[3][0]),
    )
    out.add_row("RSS of the service process", f"{run.service_rss_mib:.0f} MiB", "", "")
    for name, cpu, machine in (
        ("through the service", run.cpu_ms, run.machine_ms[0]),
        ("(b) ceiling", run.ceiling_cpu_ms, run.machine_ms[1]),
    ):
        parts = ", ".join(f"{role} {ms:.1f}" for role, ms in cpu.items())
        out.add_row(f"CPU per evaluation, {name}", f"{sum(cpu.values()):.1f} ms", parts, "")
        if cpu is run.cpu_ms:
            path_ms = sum(cpu.get(role, 0.0) for role in SERVICE_PATH)
            ok, goal = path_ms <= GOAL_SERVICE_PATH_CPU_MS, f"<= {GOAL_SERVICE_PATH_CPU_MS:g} ms"
            measure = "  ... on the service's path (service, templates, evaluations)"
            out.add_row(measure, f"{path_ms:.1f} ms", goal, met(ok))
        out.add_row("  ... the whole machine's (other work included)", f"{machine:.1f} ms", "", "")
    return out


if __name__ == "__main__":
    raise SystemExit(main())
