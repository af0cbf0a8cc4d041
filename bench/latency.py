"""`python -m bench.latency`: one evaluation at a time over HTTP, beside the same AWS calls on a warm client.

A step makes two describe calls against a moto server in its own process. Measured in one run, medians:
- (floor) the two calls on a warm boto3 client in this process;
- each layer on its own: the webhook signature check, the idempotency store, a frame to the worker and back
  (the pool), one evaluation through a warm worker (`Runner.evaluate`: the worker's session, module, its calls
  through the read-only gateway, contract);
- `stepeval serve` (one worker) over one kept-alive connection: `GET /healthz`, and a signed evaluation.
The measures are sampled in turn, so that each sees the same (shared, noisy) machine, each after a pause of
PAUSE_S: a hook one at a time finds the service idle and its spare ready, and on this VM a call that follows a
pause costs ~2 ms more than one of a back-to-back series (the floor included: it is paced like the rest).
Goals: an evaluation over HTTP <= 1.5 x floor + 1 ms; /healthz <= 2 ms.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import itertools
import os
import secrets
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from bench.common import (
    bench_environment,
    goals_table,
    interleaved_medians,
    results_console,
    sandbox_body,
    start_moto,
    start_service,
    stop,
    write_lab,
)

STEP_MODULE = """
async def run(session, context, logger):
    ec2 = session.client("ec2")
    vpcs = ec2.describe_vpcs()["Vpcs"]
    subnets = ec2.describe_subnets()["Subnets"]
    return {
        "validated": [{"name": "01_01_vpc", "type": "AWS::EC2::VPC", "id": vpcs[0]["VpcId"], "status": "found"}],
        "success": True,
        "message": f"{len(vpcs)} VPCs, {len(subnets)} subnets",
    }
"""
SPEC = """project: bench-latency
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs: [{name: 01_01_vpc, type: AWS::EC2::VPC}]
"""
GOAL_RATIO, GOAL_PLUS_MS, GOAL_HEALTHZ_MS = 1.5, 1.0, 2.0
PAUSE_S = 0.06  # before each sample: the pools' spares are ready again (they are forked after each answer)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.latency", description=__doc__)
    parser.add_argument("--runs", type=int, default=200, help="samples per measure (200)")
    args = parser.parse_args()
    bench_environment()
    import boto3

    from harness.core.account import Account, Credentials
    from harness.core.contract import ContextInput
    from harness.core.lab import load_lab
    from harness.sandbox.pool import WorkerPool
    from harness.sandbox.runner import Runner
    from harness.service.webhooks import WebhookVerifier, sign
    from harness.store.idempotency import IdempotencyStore

    tmp = Path(tempfile.mkdtemp(prefix="stepeval-latency-"))
    lab_dir = write_lab(tmp / "lab", SPEC, {"01_01": STEP_MODULE})
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    moto, moto_url = start_moto()
    processes = [moto]
    try:
        ec2 = boto3.client("ec2", endpoint_url=moto_url, region_name="us-east-1")
        verifier = WebhookVerifier(secret)
        body = sandbox_body("111111111111")
        headers = sign(secret, "msg_bench", body)
        store = IdempotencyStore(600, 10_000)
        keys = (f"msg_{n}" for n in itertools.count())

        def claim_and_complete() -> None:
            key = next(keys)
            store.claim(key, "fingerprint")
            store.complete(key, {"status": "pass"})

        lab = load_lab(lab_dir)
        pool = WorkerPool(1)
        pool.start()
        runner = Runner(lab, pool)
        module = str(lab.steps["01.01"].module_path)
        sandbox = Account(Credentials("testing", "testing"), "us-east-1", moto_url)

        service, url = start_service(lab_dir, moto_url, tmp / "service.log", secret, "--workers", "1")
        processes.append(service)
        parts = urlsplit(url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)

        def get(path: str) -> None:
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            assert response.status == 200 and not response.will_close, response.status

        ids = (f"msg_latency_{n}" for n in itertools.count())

        def evaluate_over_http() -> None:
            signed = {**sign(secret, next(ids), body), "content-type": "application/json"}
            connection.request("POST", "/v1/evaluations", body=body, headers=signed)
            response = connection.getresponse()
            answer = response.read()
            assert response.status == 200 and b'"status":"pass"' in answer.replace(b" ", b""), answer

        try:
            m = interleaved_medians(
                {
                    "floor": lambda: (ec2.describe_vpcs(), ec2.describe_subnets()),
                    "signature": lambda: verifier.verify(body, headers),
                    "idempotency": claim_and_complete,
                    "frame": lambda: pool.submit({"job": "load", "module": module}, 30),
                    "evaluation": lambda: runner.evaluate("01.01", ContextInput(), sandbox),
                    "healthz": lambda: get("/healthz"),
                    "over_http": evaluate_over_http,
                },
                args.runs,
                pause_s=PAUSE_S,
            )
        finally:
            connection.close()
            pool.close()
    finally:
        stop(*processes)

    floor, signature, idempotency, frame = m["floor"], m["signature"], m["idempotency"], m["frame"]
    evaluation, healthz, over_http = m["evaluation"], m["healthz"], m["over_http"]
    worker_ms = evaluation - frame - floor
    rest = over_http - evaluation - signature - idempotency - healthz
    goal_ms = GOAL_RATIO * floor + GOAL_PLUS_MS
    layers = goals_table(
        f"What each layer adds to one evaluation (medians of {args.runs}, {os.cpu_count()} cores)",
        [
            ("AWS calls: 2 describes on a warm boto3 client (the floor)", f"{floor:.2f} ms", "", None),
            ("worker + gateway: session, module, answer (evaluation - frame - floor)", f"{worker_ms:.2f} ms", "", None),
            ("pool: a frame to the worker and back", f"{frame:.2f} ms", "", None),
            ("signature: webhook check", f"{signature:.3f} ms", "", None),
            ("idempotency: claim + complete", f"{idempotency:.3f} ms", "", None),
            ("HTTP: GET /healthz on a kept-alive connection", f"{healthz:.2f} ms", f"<= {GOAL_HEALTHZ_MS:g} ms",
             healthz <= GOAL_HEALTHZ_MS),
            ("the rest: admission, STS (cached), JSON, threads", f"{rest:.2f} ms", "", None),
            ("one evaluation over HTTP, one at a time", f"{over_http:.2f} ms",
             f"<= {GOAL_RATIO:g} x floor + {GOAL_PLUS_MS:g} = {goal_ms:.2f} ms", over_http <= goal_ms),
            ("  ... as a multiple of the floor", f"{over_http / floor:.2f}x", "", None),
        ],
    )  # fmt: skip
    results_console("latency").print(layers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
