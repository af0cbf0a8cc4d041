"""What the benchmarks share: medians, a moto server process, a `stepeval serve` process, a lab written to disk, and
the results file each writes (bench/results/<name>.txt)."""

from __future__ import annotations

import atexit
import datetime
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = "import sys, bench.service; from harness.commands.cli import main; sys.exit(main(sys.argv[1:]))"


RESULTS = ROOT / "bench" / "results"
MODES = ("root", "userns", "none")
RELAUNCHED_ENV = "STEPEVAL_BENCH_MODE"
RESULTS_FD_ENV = "STEPEVAL_BENCH_RESULTS_FD"  # a run relaunched as another uid hands its results file to its parent


def run_in_mode(mode: str, module: str) -> None:
    """Run this benchmark again in sandbox mode `mode` (as root: `userns` as an unprivileged uid, `none` as that uid
    under a filter refusing namespaces, as a default container profile does: tests/fixtures/modes.py) and exit with
    it; nothing when it is already running there (or `mode` is root)."""
    if mode == "root" or os.environ.get(RELAUNCHED_ENV) == mode:
        return
    sys.path.insert(0, str(ROOT))
    from tests.fixtures.modes import launcher

    command = [*launcher(mode), sys.executable, "-m", module, *sys.argv[1:]]
    with tempfile.TemporaryFile() as handed:  # that uid may not write the checkout: this process writes its results
        env = {**os.environ, RELAUNCHED_ENV: mode, RESULTS_FD_ENV: str(handed.fileno()), "HOME": "/nonexistent"}
        env["PYTHONPATH"] = str(ROOT)
        code = subprocess.run(command, env=env, cwd=ROOT, pass_fds=(handed.fileno(),)).returncode
        handed.seek(0)
        name, _, text = handed.read().decode("utf-8").partition("\n")
    if name:
        _save(name, text)
    sys.exit(code)


def results_console(name: str) -> Console:
    """A Console whose output is also written to bench/results/<name>.txt when the benchmark ends: the figures of
    its last run, under a line naming the command, the commit, the cores and the load average (docs/dev.md)."""
    console = Console(record=True, width=120)
    main = getattr(sys.modules["__main__"].__spec__, "name", "bench").removesuffix(".__main__")
    command = " ".join(["python -m", main, *sys.argv[1:]])
    atexit.register(_write_results, name, console, command, os.getloadavg()[0])
    return console


def _write_results(name: str, console: Console, command: str, load_before: float) -> None:
    # a run as another uid (--mode userns|none): git refuses a checkout that uid does not own unless told it is safe
    where = ["git", "-c", f"safe.directory={ROOT}", "rev-parse", "--short", "HEAD"]
    commit = subprocess.run(where, cwd=ROOT, capture_output=True, text=True).stdout
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    head = (
        f"{command} at {commit.strip() or 'an unknown commit'}, {when}; {os.cpu_count()} cores, "
        f"load average {load_before:.1f} before and {os.getloadavg()[0]:.1f} after\n\n"
    )
    handed = os.environ.get(RESULTS_FD_ENV)
    if handed is None:
        _save(name, head + console.export_text())
    else:
        with os.fdopen(int(handed), "w", encoding="utf-8") as parent:
            parent.write(f"{name}\n{head}{console.export_text()}")


def _save(name: str, text: str) -> None:
    try:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / f"{name}.txt").write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"bench: could not write {RESULTS / name}.txt: {exc}", file=sys.stderr)


def in_child(work: Callable[[], Any]) -> Any:
    """Run `work` in a forked child and return what it returned (JSON across a pipe): figures taken in a process
    of their own (a fresh copy of this one, as the template's evaluation processes are)."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(reader)
            os.write(writer, json.dumps(work()).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def median_ms(action: Callable[[], object], runs: int, warmup: int = 3, pause_s: float = 0.0) -> float:
    """Median wall time of `action` in milliseconds (`pause_s` untimed between runs)."""
    for _ in range(warmup):
        action()
    samples = []
    for _ in range(runs):
        time.sleep(pause_s)
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def interleaved_medians(
    actions: dict[str, Callable[[], object]], runs: int, warmup: int = 3, pause_s: float = 0.0
) -> dict[str, float]:
    """Median wall time of each action in milliseconds, sampled in turn: every measure sees the same machine
    (`pause_s` untimed before each sample: each then finds the machine idle, as a request one at a time does)."""
    for action in actions.values():
        for _ in range(warmup):
            action()
    samples: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(runs):
        for name, action in actions.items():
            time.sleep(pause_s)
            started = time.perf_counter()
            action()
            samples[name].append((time.perf_counter() - started) * 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


def interleaved_cpu_ms(actions: dict[str, Callable[[], object]], runs: int, warmup: int = 3) -> dict[str, float]:
    """Mean CPU time of this process (all its threads) per call of each action in milliseconds, sampled in turn:
    what a share of a loaded machine's CPU does not blur as it does wall time."""
    for action in actions.values():
        for _ in range(warmup):
            action()
    totals = dict.fromkeys(actions, 0.0)
    for _ in range(runs):
        for name, action in actions.items():
            started = time.process_time()
            action()
            totals[name] += time.process_time() - started
    return {name: total * 1000 / runs for name, total in totals.items()}


def bench_environment() -> None:
    """Dummy credentials, no config files, quiet logs, this checkout importable by every process started."""
    os.environ.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
        AWS_EC2_METADATA_DISABLED="true",
        STEPEVAL_LOG_LEVEL="WARNING",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url: str, what: str) -> None:
    """Until `url` answers at all (any HTTP status), for at most 30 s."""
    for _ in range(600):
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{what} did not start")


KEPT_ALIVE_MOTO = (
    "import sys, moto.server as server; from harness._compat.moto import request_handler; "
    "server.MotoRequestHandler = request_handler(); server.main(sys.argv[1:])"
)


def start_moto(env: dict[str, str] | None = None, *, kept_alive: bool = False) -> tuple[subprocess.Popen[bytes], str]:
    """moto's server in a process of its own; the process and its URL. `kept_alive`: its connections kept open
    between requests, as AWS keeps them (`harness._compat.werkzeug.KeptAliveHandler`, docs/decisions/0013): moto's
    own server closes each after its answer, so every call pays a new connection at both ends."""
    port = free_port()
    server = ["-c", KEPT_ALIVE_MOTO] if kept_alive else ["-m", "moto.server"]
    process = subprocess.Popen(
        [sys.executable, *server, "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    wait_for(f"{url}/moto-api/", "moto server")
    return process, url


def start_service(lab: Path, moto_url: str, log_path: Path, secret: str, *args: str) -> tuple[subprocess.Popen, str]:
    """`stepeval serve` on a free port against `moto_url`, ready; the process and its URL."""
    import httpx

    command = [sys.executable, "-c", LAUNCH, "serve", "--lab", str(lab), "--port", "0", "--endpoint-url", moto_url]
    with log_path.open("wb") as log:
        service = subprocess.Popen(
            [*command, *args], stdout=log, stderr=subprocess.STDOUT,
            env={**os.environ, "STEPEVAL_WEBHOOK_SECRET": secret},
        )  # fmt: skip
    url = None
    for _ in range(600):
        lines = [json.loads(x) for x in log_path.read_text().splitlines() if x.startswith('{"')]
        url = next((x["url"] for x in lines if x.get("event") == "listening"), None)
        if url:
            break
        time.sleep(0.05)
    if url is None:
        service.kill()
        raise SystemExit(f"the service did not start: {log_path.read_text()}")
    for _ in range(1200):
        if httpx.get(f"{url}/readyz").status_code == 200:
            break
        time.sleep(0.05)
    return service, url


def stop(*processes: subprocess.Popen) -> None:
    for process in reversed(processes):
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()


def write_lab(root: Path, spec: str, modules: dict[str, str]) -> Path:
    """A lab directory: specs/lab.yaml and evaluation/boto3/<stem>.py for each module."""
    (root / "specs").mkdir(parents=True)
    (root / "evaluation" / "boto3").mkdir(parents=True)
    (root / "specs" / "lab.yaml").write_text(spec)
    for stem, text in modules.items():
        (root / "evaluation" / "boto3" / f"{stem}.py").write_text(text)
    return root


def sandbox_body(account: str, step: str = "01.01") -> bytes:
    """A request body for `POST /v1/evaluations`."""
    sandbox = {
        "account_id": account,
        "role_arn": f"arn:aws:iam::{account}:role/stepeval-evaluator",
        "external_id": "bench-external-id",
        "region": "us-east-1",
    }
    return json.dumps({"step": step, "sandbox": sandbox}).encode()


def goals_table(title: str, rows: list[tuple[str, str, str, bool | None]]) -> Table:
    """measure, value, goal, met (None: no goal)."""
    table = Table(title=title)
    for column in ("measure", "value", "goal", "met"):
        table.add_column(column)
    for name, value, goal, met in rows:
        table.add_row(name, value, goal, "" if met is None else ("[green]yes[/]" if met else "[red]no[/]"))
    return table
