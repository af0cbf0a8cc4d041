"""`stepeval replay` on recorded evaluations, offline: an unchanged module changes nothing; a stricter one is a
listed pass -> fail (exit 1); one that asks AWS something new is unjudgeable, its request listed (exit 1); a
corrupt recording is named and skipped. Recorded on the moto server, which is wiped before every replay."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from harness.core.account import Account, Credentials
from harness.core.contract import ContextInput
from harness.core.lab import load_lab
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner
from harness.store.engine import open_engine
from harness.store.evaluations import EvaluationRecorder, Retention
from harness.store.records import RecordStore
from harness.store.schema import evaluations
from tests.conftest import LABS, REGION, STEPEVAL, MotoAccount, wipe

pytestmark = pytest.mark.process

MODULE = Path("evaluation/boto3/01_01.py")


@pytest.fixture
def recorded(store_url: str, tmp_path: Path, pool: WorkerPool, aws: MotoAccount, moto_url: str) -> tuple[Path, str]:
    """A copy of the lab and three recorded evaluations of it (pass, pass, fail); then moto is wiped."""
    lab_dir = tmp_path / "lab"
    shutil.copytree(LABS / "recorded", lab_dir)
    lab = load_lab(lab_dir)
    aws.client("s3").create_bucket(Bucket="site")
    aws.client("s3").create_bucket(Bucket="strict-site")
    engine = open_engine(store_url)
    recorder = EvaluationRecorder(RecordStore(engine), lab, Retention(90, 1000), source="cli")
    runner = Runner(lab, pool)
    sandbox = Account(Credentials("testing", "testing"), REGION, moto_url)
    for name in ("site", "strict-site", "nope"):
        context = ContextInput.model_validate({"events": [{"type": "AWS::S3::Bucket", "id": name}]})
        tap = recorder.tap()
        answer = runner.evaluate("01.01", context, sandbox, tap=tap)
        assert answer.status == ("fail" if name == "nope" else "pass")
        recorder.record("01.01", None, REGION, context, answer, tap)
    engine.dispose()
    wipe(moto_url)  # nothing of the learner's account is left: replay can only use the recording
    return lab_dir, store_url


def replay(lab_dir: Path, url: str, *more: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [STEPEVAL, "replay", "--lab", str(lab_dir), "--store", url, "--json", *more], capture_output=True, text=True
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


def edit_module(lab_dir: Path, old: str, new: str) -> None:
    path = lab_dir / MODULE
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_an_unchanged_module_changes_no_verdict(recorded: tuple[Path, str]) -> None:
    code, report = replay(*recorded)
    assert code == 0, report
    assert report["steps"]["01.01"]["replayed"] == 3 and report["steps"]["01.01"]["unchanged"] == 3
    assert report["changes"] == [] and not report["failed"]


def test_a_stricter_module_is_a_listed_regression(recorded: tuple[Path, str]) -> None:
    lab_dir, url = recorded
    edit_module(lab_dir, "if name in names)", 'if name in names and name.startswith("strict-"))')
    code, report = replay(lab_dir, url)
    assert code == 1
    (change,) = report["changes"]
    assert change["kind"] == "regression" and change["before"] == "pass" and change["after"] == "fail (no such bucket)"
    assert report["steps"]["01.01"]["regression"] == 1 and report["steps"]["01.01"]["unchanged"] == 2


def test_a_module_asking_aws_something_new_is_unjudgeable(recorded: tuple[Path, str]) -> None:
    lab_dir, url = recorded
    edit_module(
        lab_dir,
        '    wanted = [event["id"]',
        '    session.client("s3").get_bucket_versioning(Bucket="site")\n    wanted = [event["id"]',
    )
    code, report = replay(lab_dir, url, "--step", "01.01", "--since", "2020-01-01")
    assert code == 1
    assert [c["kind"] for c in report["changes"]] == ["unjudgeable"] * 3
    assert report["changes"][0]["missing"] == ["s3:GetBucketVersioning /site versioning="]


def test_a_corrupt_recording_is_named_and_skipped(recorded: tuple[Path, str]) -> None:
    lab_dir, url = recorded
    store = RecordStore(open_engine(url))
    first = next(iter(store.select())).id
    with store.engine.begin() as connection:
        connection.execute(update(evaluations).where(evaluations.c.id == first).values(recording=b"\x78\x9c garbage"))
    store.engine.dispose()
    code, report = replay(lab_dir, url)
    assert code == 0
    assert [c["id"] for c in report["corrupt"]] == [first] and first in report["corrupt"][0]["detail"]
    assert report["steps"]["01.01"]["replayed"] == 2


def test_bad_replay_input_is_one_line(tmp_path: Path) -> None:
    lab = str(LABS / "recorded")
    for args, says in [
        (["--store", "nonsense"], "--store 'nonsense': not a store URL"),
        (["--store", f"sqlite:///{tmp_path}/s.db", "--since", "yesterday"], "--since 'yesterday': not a date"),
        (["--store", f"sqlite:///{tmp_path}/s.db", "--step", "09.09"], "no step 09.09"),
    ]:
        done = subprocess.run([STEPEVAL, "replay", "--lab", lab, *args], capture_output=True, text=True)
        assert done.returncode == 2 and says in done.stderr and done.stderr.count("\n") == 1, done.stderr
