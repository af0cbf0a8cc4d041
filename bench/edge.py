"""`python -m bench.edge`: what stalled unsigned clients cost `stepeval serve` (issue 31).

N connections (200) each declare a 1 MiB body, send 1,008 KiB of it (as much as the kernel takes) and stall, as an
attacker holding the HTTP edge open would. Measured: the service process's resident memory before, at its highest
while they stall (VmHWM), and the connections' fates (408 for a stalled body, 503 for a body no reader was free
for, closed). Goal: the stalled connections cost the service at most 20 MiB.

Then IDLE connections (2,000) from the one address each send part of a head and stall: the service's open
descriptors at their highest stay within STEPEVAL_MAX_CONNECTIONS (1024) and one accept batch (512: connections
accepted and not yet shed) of its own, and all but STEPEVAL_MAX_CONNECTIONS_PER_CLIENT (256) are closed; and
PIPELINED requests (2,000 `GET /healthz` sent at once) get one answer and a closed connection.
"""

from __future__ import annotations

import argparse
import os
import resource
import secrets
import socket
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.common import bench_environment, goals_table, results_console, start_moto, start_service, stop, write_lab
from bench.service import SPEC, STEP_MODULE
from harness.service.serve import ACCEPT_BATCH

GOAL_MIB = 20.0
DECLARED = 1024 * 1024
SENT = 1008 * 1024
SETTLE_S = 3.0  # after the last connection is opened, before memory is read
IDLE = 2000
PER_CLIENT = 256  # STEPEVAL_MAX_CONNECTIONS_PER_CLIENT's default
DESCRIPTORS_BOUND = 1024 + ACCEPT_BATCH  # STEPEVAL_MAX_CONNECTIONS's default, and one turn's accepts
PIPELINED = 2000


def proc_kib(pid: int, field: str) -> int:
    """A /proc/PID/status field (VmRSS, VmHWM) in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1])
    raise SystemExit(f"no {field} for process {pid}")


def reset_peak(pid: int) -> None:
    """VmHWM from now on (writing 5 to clear_refs resets it; the service is this user's process)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def stall(host: str, port: int, count: int) -> list[socket.socket]:
    """`count` connections, each with its head and as much of SENT bytes as the kernel takes without blocking."""
    head = (
        b"POST /v1/evaluations HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % DECLARED
    )
    body = b"{" + b" " * (SENT - 1)
    opened = []
    for _ in range(count):
        sock = socket.create_connection((host, port), timeout=10)
        sock.sendall(head)
        sock.setblocking(False)
        sent = 0
        while sent < len(body):
            try:
                sent += sock.send(body[sent : sent + 65536])
            except BlockingIOError:
                break
        opened.append(sock)
    return opened


def fates(opened: list[socket.socket], wait_s: float) -> Counter[str]:
    """What each connection got within `wait_s`: the status of its answer, `closed` with none, `open` still."""
    got: Counter[str] = Counter()
    deadline = time.monotonic() + wait_s
    for sock in opened:
        sock.setblocking(True)
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            first = sock.recv(64)
            got[first[9:12].decode() if first.startswith(b"HTTP/1.1 ") else "closed"] += 1
        except TimeoutError:
            got["open"] += 1
        except OSError:
            got["closed"] += 1
        sock.close()
    return got


def descriptors(pid: int) -> int:
    """The process's open file descriptors."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def idle_flood(host: str, port: int, pid: int) -> tuple[int, int, int]:
    """IDLE connections each with part of a head: the service's descriptors before and at their highest, and how
    many of the connections it closed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, IDLE + 256)), hard))  # this client's own
    before, highest, opened = descriptors(pid), 0, []
    for i in range(IDLE):
        sock = socket.create_connection((host, port), timeout=10)
        sock.sendall(b"POST /v1/evaluations HTTP/1.1\r\nHost: bench\r\n")
        opened.append(sock)
        if i % 100 == 0:
            highest = max(highest, descriptors(pid))
    highest = max(highest, descriptors(pid))
    got = fates(opened, 2.0)
    return before, highest, got["closed"]


def pipelined(host: str, port: int) -> tuple[int, bool]:
    """PIPELINED requests at once: the answers read, and whether the service closed the connection."""
    sock = socket.create_connection((host, port), timeout=20)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n" * PIPELINED)
    received, closed = b"", False
    try:
        while chunk := sock.recv(65536):
            received += chunk
        closed = True
    except ConnectionResetError:
        closed = True
    except TimeoutError:
        pass
    sock.close()
    return received.count(b"HTTP/1.1 "), closed


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.edge", description=__doc__)
    parser.add_argument("--connections", type=int, default=200, help="stalled unsigned connections (200)")
    args = parser.parse_args()
    console = results_console("edge")
    bench_environment()
    tmp = Path(tempfile.mkdtemp(prefix="stepeval-bench-edge-"))
    lab = write_lab(tmp / "lab", SPEC, {"01_01": STEP_MODULE})
    processes: list[subprocess.Popen] = []
    try:
        moto, moto_url = start_moto()
        processes.append(moto)
        service, url = start_service(lab, moto_url, tmp / "service.log", "whsec_" + secrets.token_hex(16))
        processes.append(service)
        host, port = url.removeprefix("http://").rsplit(":", 1)
        time.sleep(1.0)
        before = proc_kib(service.pid, "VmRSS:")
        reset_peak(service.pid)
        opened = stall(host, int(port), args.connections)
        time.sleep(SETTLE_S)
        during = proc_kib(service.pid, "VmRSS:")
        peak = proc_kib(service.pid, "VmHWM:")
        got = fates(opened, 15.0)
        after = proc_kib(service.pid, "VmRSS:")
        fds_before, fds_highest, idle_closed = idle_flood(host, int(port), service.pid)
        answers, pipeline_closed = pipelined(host, int(port))
    finally:
        stop(*processes)
    cost = (peak - before) / 1024
    console.print(
        goals_table(
            f"HTTP edge: {args.connections} unsigned connections, each {SENT // 1024} KiB of a declared "
            f"{DECLARED // 1024} KiB body, then stalled (pid {os.getpid()})",
            [
                ("service RSS before", f"{before / 1024:.1f} MiB", "", None),
                ("service RSS while they stall", f"{during / 1024:.1f} MiB", "", None),
                ("service's peak over its RSS before", f"{cost:.1f} MiB", f"<= {GOAL_MIB:g} MiB", cost <= GOAL_MIB),
                ("service RSS once they are let go", f"{after / 1024:.1f} MiB", "", None),
                ("their fates", ", ".join(f"{k}: {v}" for k, v in sorted(got.items())), "none open", not got["open"]),
                (
                    f"service descriptors under {IDLE} idle connections",
                    f"{fds_before} -> {fds_highest}",
                    f"<= {fds_before} + {DESCRIPTORS_BOUND}",
                    fds_highest <= fds_before + DESCRIPTORS_BOUND,
                ),
                (
                    "idle connections the service closed",
                    f"{idle_closed} of {IDLE}",
                    f">= {IDLE - PER_CLIENT}",
                    idle_closed >= IDLE - PER_CLIENT,
                ),
                (
                    f"{PIPELINED} pipelined GET /healthz",
                    f"{answers} answer(s), closed: {pipeline_closed}",
                    "1, closed",
                    answers == 1 and pipeline_closed,
                ),
            ],
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
