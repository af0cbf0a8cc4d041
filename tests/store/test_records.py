"""Recording through the gateway into the store, on SQLite and PostgreSQL: what is kept, what never is,
retention, corrupt rows, and transactions that land whole or not at all when a writer is killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
from sqlalchemy import select, update

from harness.commands.replay import describe_incomplete
from harness.core.account import Account, Credentials
from harness.core.contract import ContextInput
from harness.core.lab import load_lab
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner
from harness.sandbox.tap import Exchange
from harness.store import recording
from harness.store.engine import open_engine
from harness.store.evaluations import EvaluationRecorder, Retention
from harness.store.recording import RecordingTap
from harness.store.records import CorruptRecording, RecordStore
from harness.store.schema import evaluations
from tests.conftest import LABS, REGION, MotoAccount

pytestmark = pytest.mark.process

LAB = load_lab(LABS / "recorded")
SECRET = "sEcReTkEy-should-never-be-stored"
TOKEN = "SeSsIoNtOkEn-should-never-be-stored"


def bucket_context(*names: str) -> ContextInput:
    return ContextInput.model_validate({"events": [{"type": "AWS::S3::Bucket", "id": n} for n in names]})


def record_some(url: str, pool: WorkerPool, moto_url: str, contexts: list[ContextInput]) -> RecordStore:
    store = RecordStore(open_engine(url))
    recorder = EvaluationRecorder(store, LAB, Retention(90, 1000), source="cli")
    runner = Runner(LAB, pool)
    sandbox = Account(Credentials("AKIDTESTING", SECRET, TOKEN), REGION, moto_url)
    for context in contexts:
        tap = recorder.tap()
        answer = runner.evaluate("01.01", context, sandbox, tap=tap)
        assert recorder.record("01.01", "msg_1", REGION, context, answer, tap)
    return store


def test_an_evaluation_is_recorded_whole_and_without_credentials(
    store_url: str, pool: WorkerPool, aws: MotoAccount, moto_url: str
) -> None:
    aws.client("s3").create_bucket(Bucket="site")
    store = record_some(store_url, pool, moto_url, [bucket_context("site"), bucket_context("other")])
    try:
        first, second = list(store.select(lab="recorded"))
        assert (first.status, second.status) == ("pass", "fail")
        assert second.issue == "no such bucket"
        assert first.lab_version == second.lab_version and len(first.lab_version) == 16
        assert first.read_context()["events"] == [{"type": "AWS::S3::Bucket", "id": "site"}]
        assert first.read_answer()["status"] == "pass"
        exchanges = first.exchanges()
        assert [(x["service"], x["operation"]) for x in exchanges] == [
            ("sts", "GetCallerIdentity"),
            ("s3", "ListBuckets"),
        ]
        listing = exchanges[1]
        assert listing["response"]["status"] == 200 and "<Name>site</Name>" in listing["response"]["body"]["text"]
        assert listing["request"]["method"] == "GET"
        with store.engine.connect() as connection:
            rows = connection.execute(select(evaluations)).all()
        everything = json.dumps([[str(v) for v in row] for row in rows]) + "".join(
            zlib.decompress(row.recording).decode() for row in rows
        )
        for secret in (SECRET, TOKEN, "Authorization", "authorization", "X-Amz-Security-Token", "Signature="):
            assert secret not in everything
        assert store.bytes_per_evaluation() > 0
    finally:
        store.engine.dispose()


def test_retention_by_age_and_count_touches_only_that_lab(store_url: str) -> None:
    store = RecordStore(open_engine(store_url))
    recorded = list(_fake_records(store, "recorded", 10, start=1000.0))
    _ = list(_fake_records(store, "another-lab", 3, start=1000.0))
    try:
        assert store.prune("recorded", max_age_s=1e9, max_count=6, now=2000.0) == 4
        assert [r.id for r in store.select(lab="recorded")] == recorded[4:]
        assert store.prune("recorded", max_age_s=993.0, max_count=100, now=2000.0) == 3  # 1004-1006 < 1007
        assert store.count("recorded") == 3 and store.count("another-lab") == 3
    finally:
        store.engine.dispose()


def _fake_records(store: RecordStore, lab: str, n: int, *, start: float) -> list[str]:
    from harness.core.contract import Answer
    from harness.store.records import NewRecord

    ids = []
    for i in range(n):
        answer = Answer(step="01.01", status="pass", success=True, message="ok", duration_ms=float(i))
        record = NewRecord(lab, "01.01", "v1", "cli", None, REGION, ContextInput(), answer, [])
        ids.append(store.add(record, now=start + i))
    return ids


def test_a_corrupt_recording_is_named_by_id(store_url: str) -> None:
    store = RecordStore(open_engine(store_url))
    try:
        (record_id,) = _fake_records(store, "recorded", 1, start=1.0)
        with store.engine.begin() as connection:
            connection.execute(update(evaluations).values(recording=b"not zlib"))
        (stored,) = store.select()
        with pytest.raises(CorruptRecording, match=record_id):
            stored.exchanges()
    finally:
        store.engine.dispose()


WRITER = """
import sys, time
from harness.core.contract import Answer, ContextInput
from harness.store.engine import open_engine
from harness.store.records import NewRecord, RecordStore
store = RecordStore(open_engine(sys.argv[1]))
big = [{"key": str(i), "blob": "x%d" % i * 4000} for i in range(200)]  # ~4 MB before compression
while True:
    answer = Answer(step="01.01", status="pass", success=True, message="ok")
    record_id = store.add(NewRecord("recorded", "01.01", "v1", "cli", None, "us-east-1", ContextInput(), answer, big))
    print(record_id, flush=True)
"""


def test_a_writer_killed_mid_write_loses_nothing_committed_and_leaves_nothing_partial(store_url: str) -> None:
    open_engine(store_url).dispose()  # migrated before the writer starts
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, store_url], stdout=subprocess.PIPE, text=True, env={**os.environ}
    )
    committed: list[str] = []
    assert writer.stdout is not None
    while len(committed) < 5:
        committed.append(writer.stdout.readline().strip())
    time.sleep(0.037)  # somewhere inside a later write
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    committed += [line.strip() for line in writer.stdout.read().splitlines() if line.strip()]
    store = RecordStore(open_engine(store_url))
    try:
        found = list(store.select())
        ids = {record.id for record in found}
        assert set(committed) <= ids  # everything acknowledged is there
        for record in found:  # and whatever is there is whole
            assert len(record.exchanges()) == 200
            assert record.read_answer()["status"] == "pass"
    finally:
        store.engine.dispose()


def test_the_cli_records_when_asked(sqlite_store: str, aws: MotoAccount, moto_url: str, tmp_path: Path) -> None:
    from tests.conftest import STEPEVAL

    aws.client("s3").create_bucket(Bucket="site")
    context = tmp_path / "context.json"
    context.write_text(json.dumps({"events": [{"type": "AWS::S3::Bucket", "id": "site"}]}))
    command = [STEPEVAL, "run", "01.01", "--lab", str(LABS / "recorded"), "--context", str(context)]
    done = subprocess.run(
        [*command, "--endpoint-url", moto_url, "--store", sqlite_store], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    store = RecordStore(open_engine(sqlite_store))
    try:
        (record,) = store.select()
        assert record.status == "pass" and len(record.exchanges()) == 2
    finally:
        store.engine.dispose()
    bad = subprocess.run(
        [*command, "--endpoint-url", moto_url, "--store", "sqlite:////no/such/dir/x.db"], capture_output=True, text=True
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0 and "sqlite:////no/such/dir/x.db" in bad.stderr


class SlowRecorder(RecordingTap):
    """Keeps each exchange a while after the module has its answer (as a loaded machine might)."""

    def observe(self, exchange: Exchange) -> None:
        time.sleep(0.2)
        super().observe(exchange)


def test_the_last_exchange_is_kept_even_when_the_module_is_done_first(
    pool: WorkerPool, aws: MotoAccount, moto_url: str
) -> None:
    tap = SlowRecorder()
    sandbox = Account(Credentials("testing", "testing"), REGION, moto_url)
    answer = Runner(LAB, pool).evaluate("01.01", bucket_context("site"), sandbox, tap=tap)
    assert answer.status == "fail"
    assert [x["operation"] for x in tap.exchanges] == ["GetCallerIdentity", "ListBuckets"]


def test_a_recording_past_its_cap_says_what_it_lacks(
    store_url: str, pool: WorkerPool, aws: MotoAccount, moto_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31: past the exchange cap the record keeps a count and the operations dropped, and replay names them."""
    monkeypatch.setattr(recording, "MAX_EXCHANGES", 1)
    aws.client("s3").create_bucket(Bucket="site")
    store = record_some(store_url, pool, moto_url, [bucket_context("site")])
    try:
        (record,) = list(store.select(lab="recorded"))
        assert [x["operation"] for x in record.exchanges()] == ["GetCallerIdentity"]
        assert record.calls == 2
        summary = record.incomplete()
        assert summary is not None and summary["operations_dropped"] == {"s3:ListBuckets": 1}
        assert "1 calls dropped past its cap (s3:ListBuckets x1)" in describe_incomplete(summary)
    finally:
        store.engine.dispose()
