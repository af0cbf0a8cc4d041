"""`stepeval demo`: the seed examples played on an embedded moto server, no AWS account, no network.

A learner's bucket is checked before and after it exists, then its policy; last, a module that tries to
write is refused, and the learner's policy is shown to be untouched.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
from moto.server import ThreadedMotoServer
from rich.console import Console

from harness.account import Credentials, SandboxSpec
from harness.contract import Answer, ContextInput, Event, Handle
from harness.errors import BadInput
from harness.lab import load_lab
from harness.pool import LOG_LEVEL_ENV, WorkerPool
from harness.render import answer_panel
from harness.runner import Runner

REPO = Path(__file__).resolve().parents[1]
SEED_LAB = REPO / "tests" / "labs" / "seed_examples"
ROGUE_LAB = REPO / "tests" / "labs" / "misbehaving"
REGION = "us-east-1"
BUCKET = "learner-site-bucket"
PUBLIC_READ = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{BUCKET}/*"}
    ],
}


def run_demo(*, as_json: bool) -> int:
    """Play the demo; exit 0 when every answer is the one expected, 1 otherwise."""
    if not SEED_LAB.is_dir() or not ROGUE_LAB.is_dir():
        raise BadInput(f"the demo needs the source checkout's labs under {REPO / 'tests' / 'labs'}")
    console = Console(stderr=as_json)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's request log would drown the answers
    os.environ[LOG_LEVEL_ENV] = "WARNING"  # and so would the step modules' info lines
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        with WorkerPool(1) as pool:
            return _play(endpoint, pool, console, as_json)
    finally:
        server.stop()


def _play(endpoint: str, pool: WorkerPool, console: Console, as_json: bool) -> int:
    learner = boto3.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION).client(
        "s3", endpoint_url=endpoint
    )
    sandbox = SandboxSpec(Credentials("testing", "testing"), REGION, endpoint)
    seed = Runner(load_lab(SEED_LAB), pool)
    rogue = Runner(load_lab(ROGUE_LAB), pool)
    bucket = Handle(name="01_01_bucket", type="AWS::S3::Bucket", id=BUCKET)
    bucket_event = ContextInput(events=[Event(type="AWS::S3::Bucket", id=BUCKET)])
    policy_context = ContextInput(resolved=[bucket], events=[Event(type="AWS::S3::BucketPolicy", id=BUCKET)])
    acts: list[tuple[str, Callable[[], Any] | None, Callable[[], Answer], str]] = [
        (
            "01.01 before the learner creates the bucket",
            None,
            lambda: seed.evaluate("01.01", bucket_event, sandbox),
            "fail",
        ),
        (
            "the learner creates the bucket",
            lambda: learner.create_bucket(Bucket=BUCKET),
            lambda: seed.evaluate("01.01", bucket_event, sandbox),
            "pass",
        ),
        (
            "01.02 before the learner adds a policy",
            None,
            lambda: seed.evaluate("01.02", policy_context, sandbox),
            "fail",
        ),
        (
            "the learner adds a public-read policy",
            lambda: learner.put_bucket_policy(Bucket=BUCKET, Policy=json.dumps(PUBLIC_READ)),
            lambda: seed.evaluate("01.02", policy_context, sandbox),
            "pass",
        ),
        (
            "a module that tries to overwrite the policy",
            None,
            lambda: rogue.evaluate("01.01", bucket_event, sandbox),
            "error",
        ),
    ]
    unexpected = 0
    for title, learner_action, evaluate, expected in acts:
        if learner_action is not None:
            learner_action()
        answer = evaluate()
        unexpected += answer.status != expected
        if as_json:
            sys.stdout.write(answer.model_dump_json() + "\n")
        else:
            console.print(answer_panel(answer, title))
    untouched = json.loads(learner.get_bucket_policy(Bucket=BUCKET)["Policy"]) == PUBLIC_READ
    unexpected += not untouched
    verdict = "still the learner's own" if untouched else "CHANGED"
    console.print(f"After the refused write, the bucket policy on {BUCKET} is {verdict}.", soft_wrap=True)
    return 1 if unexpected else 0
