"""`python -m bench.many_labs`: what a lab costs in a service that serves many (`stepeval serve --labs`).

Copies of the sample web-tier lab (8 steps), each with its own `project`, served by one service at 1, 10 and 50
labs (`--sizes`), with a fixed worker count (`--workers`, so that the figures are the labs' and not the pool's).
For each size: start-up time (the process started to `/readyz` 200: every lab read, copied, and every step
module imported once in an evaluation process) and memory once ready: resident (RSS) and proportional (PSS:
pages shared between processes counted once) of the service process, and of its template with the evaluation
processes it forked. Per lab: the total divided by the labs, and the marginal cost of a lab (the difference
with one lab, divided by the labs added). Beside it, what one service per lab would take (N times one lab's).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import secrets
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.table import Table

from bench.common import bench_environment, results_console, stop
from bench.service import proc_mib, template_family

REPO = Path(__file__).resolve().parents[1]
SIZES = (1, 10, 50)


def make_labs(root: Path, count: int) -> Path:
    """`count` copies of the sample web-tier lab (specs/ and evaluation/), projects web-tier-000..."""
    spec = next((REPO / "specs").glob("*.yaml"))
    for index in range(count):
        lab = root / f"lab-{index:03d}"
        shutil.copytree(REPO / "evaluation", lab / "evaluation", ignore=shutil.ignore_patterns("__pycache__"))
        (lab / "specs").mkdir(parents=True)
        text = spec.read_text().replace("project: web-tier", f"project: web-tier-{index:03d}", 1)
        (lab / "specs" / spec.name).write_text(text)
    return root


def memory_mib(pids: list[int]) -> tuple[float, float]:
    """(RSS, PSS) of these processes together, MiB."""
    rss = sum(proc_mib(pid, "VmRSS:", "status") or 0.0 for pid in pids)
    pss = sum(proc_mib(pid, "Pss:", "smaps_rollup") or 0.0 for pid in pids)
    return rss, pss


def family(pid: int) -> list[int]:
    """The templates and every process they forked (spares waiting for a job)."""
    found: list[int] = []
    for template in template_family(pid):
        found.append(template)
        for task in Path(f"/proc/{template}/task").glob("*"):
            try:
                found += [int(child) for child in (task / "children").read_text().split()]
            except OSError:
                continue
    return found


def measure(count: int, workers: int, log_dir: Path) -> dict[str, Any]:
    """One service on `count` labs: start-up seconds and memory once ready."""
    import subprocess
    import sys

    import httpx

    from bench.common import LAUNCH

    labs = make_labs(Path(tempfile.mkdtemp(prefix=f"bench-labs-{count}-")), count)
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    log_path = log_dir / f"labs-{count}.log"
    command = [sys.executable, "-c", LAUNCH, "serve", "--labs", str(labs), "--port", "0", "--workers", str(workers)]
    started = time.monotonic()
    with log_path.open("wb") as log:
        service = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "STEPEVAL_WEBHOOK_SECRET": secret}
        )
    try:
        url = None
        while url is None and time.monotonic() - started < 600:
            lines = [json.loads(x) for x in log_path.read_text().splitlines() if x.startswith('{"')]
            url = next((x["url"] for x in lines if x.get("event") == "listening"), None)
            if service.poll() is not None:
                raise SystemExit(f"the service exited: {log_path.read_text()[-2000:]}")
            time.sleep(0.02)
        ready: dict[str, Any] = {}
        while time.monotonic() - started < 600:
            response = httpx.get(f"{url}/readyz")
            if response.status_code == 200:
                ready = response.json()
                break
            time.sleep(0.02)
        seconds = time.monotonic() - started
        if len(ready.get("labs", [])) != count or ready.get("module_problems"):
            raise SystemExit(f"{count} labs: not all served: {ready}")
        time.sleep(2.0)  # the spares forked after readiness settle
        service_rss, service_pss = memory_mib([service.pid])
        pool_rss, pool_pss = memory_mib(family(service.pid))
    finally:
        stop(service)
        shutil.rmtree(labs, ignore_errors=True)
    return {
        "labs": count,
        "startup_s": seconds,
        "service_rss": service_rss,
        "service_pss": service_pss,
        "pool_rss": pool_rss,
        "pool_pss": pool_pss,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="lab counts (comma-separated)")
    parser.add_argument("--workers", type=int, default=8, help="evaluation processes (fixed for every size)")
    args = parser.parse_args()
    bench_environment()
    console = results_console("many_labs")  # now: its load average is the one before the runs
    sizes = [int(size) for size in args.sizes.split(",")]
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-many-labs-") as logs:
        runs = [measure(count, args.workers, Path(logs)) for count in sizes]
    one = runs[0]
    table = Table(title=f"one service, many labs ({args.workers} workers; load {load:.1f} at start, 2 cores)")
    for column in (
        "labs",
        "start-up s",
        "s per lab",
        "service RSS / PSS MiB",
        "template + spares RSS / PSS MiB",
        "PSS per lab MiB",
        "marginal PSS per lab MiB",
        "one service per lab: PSS MiB",
    ):
        table.add_column(column, justify="right")
    for run in runs:
        pss = run["service_pss"] + run["pool_pss"]
        base = one["service_pss"] + one["pool_pss"]
        added = run["labs"] - one["labs"]
        marginal = f"{(pss - base) / added:.2f}" if added else "-"
        table.add_row(
            str(run["labs"]),
            f"{run['startup_s']:.1f}",
            f"{run['startup_s'] / run['labs']:.2f}",
            f"{run['service_rss']:.0f} / {run['service_pss']:.0f}",
            f"{run['pool_rss']:.0f} / {run['pool_pss']:.0f}",
            f"{pss / run['labs']:.2f}",
            marginal,
            f"{base * run['labs'] / one['labs']:.0f}",
        )
    console.print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
