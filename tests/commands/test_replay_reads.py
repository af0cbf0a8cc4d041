"""Replay and the kit's NotFound retries: a recording that answered each request one way is replayed with
consistent reads (a NotFound is asked once, as where it was recorded: asking again could only get the same
answer); one whose repeated request was answered otherwise (a NotFound, then the bucket) is replayed with the
retries, and the retry gets the later answer."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from sqlalchemy import update

from harness.commands.replay import Replayer, replay_one
from harness.core.account import Account, Credentials
from harness.core.contract import ContextInput
from harness.core.lab import Lab, load_lab
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner
from harness.store.engine import open_engine
from harness.store.evaluations import EvaluationRecorder, Retention
from harness.store.records import RecordStore, StoredRecord
from harness.store.schema import evaluations
from tests.conftest import REGION

SPEC = """project: reads
title: A step that asks again when a bucket is not found
timeout: 10
objectives:
  - id: "01"
    steps:
      - id: "01"
        description: the bucket named in the events exists
        outputs: [{name: 01_01_bucket, type: AWS::S3::Bucket}]
"""

MODULE = """
from harness.kit.aws import fetch_or_none

OUTPUT = ("01_01_bucket", "AWS::S3::Bucket")


async def run(session, context, logger):
    s3 = session.client("s3")
    name = context["events"][0]["id"]
    found = fetch_or_none(lambda: s3.head_bucket(Bucket=name), retry=True, service="s3")
    status = "found" if found is not None else "not_found"
    result = {
        "validated": [{"name": OUTPUT[0], "type": OUTPUT[1], "id": name if found else None, "status": status}],
        "success": found is not None,
        "message": status,
    }
    if found is None:
        result["failure_context"] = {"step": "01.01", "issue": "no such bucket", "hint_context": "create it"}
    return result
"""


def write_lab(root: Path) -> Lab:
    (root / "specs").mkdir(parents=True)
    (root / "evaluation" / "boto3").mkdir(parents=True)
    (root / "specs" / "lab.yaml").write_text(SPEC)
    (root / "evaluation" / "boto3" / "01_01.py").write_text(MODULE)
    return load_lab(root)


def exchange(key: str, status: int) -> dict[str, object]:
    return {"key": key, "response": {"status": status, "headers": [], "body": {"text": ""}}}


def test_consistent_means_each_request_answered_one_way() -> None:
    assert Replayer([exchange("a", 404), exchange("b", 200)]).consistent
    assert Replayer([exchange("a", 404), exchange("a", 404)]).consistent
    assert not Replayer([exchange("a", 404), exchange("a", 200)]).consistent
    assert Replayer([]).consistent


def head_buckets(runner: Runner, record: StoredRecord) -> tuple[str, int]:
    """The replayed verdict and how often the module asked for the bucket."""
    _, after, missing = replay_one(runner, record)
    assert missing == []
    assert after.diagnostics is not None
    return after.status, sum(op.operation == "HeadBucket" for op in after.diagnostics.operations)


def test_replay_asks_a_not_found_again_only_when_the_recording_answered_otherwise(
    tmp_path: Path, pool: WorkerPool, moto_url: str
) -> None:
    lab = write_lab(tmp_path / "lab")
    store = RecordStore(open_engine(f"sqlite:///{tmp_path / 'store.db'}"))
    recorder = EvaluationRecorder(store, lab, Retention(90, 100), source="cli")
    runner = Runner(lab, pool)
    context = ContextInput.model_validate({"events": [{"type": "AWS::S3::Bucket", "id": "missing"}]})
    tap = recorder.tap()
    answer = runner.evaluate("01.01", context, Account(Credentials("testing", "testing"), REGION, moto_url), tap=tap)
    assert answer.status == "fail"
    assert [x["operation"] for x in tap.exchanges] == ["HeadBucket"]  # moto: a NotFound is asked once
    recorder.record("01.01", None, REGION, context, answer, tap)
    (record,) = store.select()

    assert head_buckets(runner, record) == ("fail", 1)  # one answer per request: asked once, no sleeps

    found_later = [
        *tap.exchanges,
        {**tap.exchanges[0], "response": {"status": 200, "headers": [], "body": {"text": ""}}},
    ]
    with store.engine.begin() as connection:
        packed = zlib.compress(json.dumps(found_later).encode())
        connection.execute(update(evaluations).where(evaluations.c.id == record.id).values(recording=packed))
    (edited,) = store.select()
    assert head_buckets(runner, edited) == ("pass", 2)  # asked again, as AWS would be, and found
    store.engine.dispose()
