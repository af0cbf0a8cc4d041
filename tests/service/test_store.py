"""The service with a store, as real processes over real HTTP: every evaluation recorded; two instances on one
PostgreSQL answer a webhook-id once between them; a bad store URL stops `stepeval serve` with one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from harness.store.engine import open_engine
from harness.store.records import RecordStore
from tests.conftest import LABS
from tests.fixtures.modes import ROOT
from tests.fixtures.service import LAUNCH, SECRET, Sandbox, bucket_events
from tests.fixtures.store import pg_url, running_postgresql

pytestmark = pytest.mark.process

LAB = str(LABS / "recorded")


def start(service_factory: Any, name: str, moto_server: str, url: str) -> Any:
    args = ("--lab", LAB, "--workers", "2", "--endpoint-url", moto_server, "--store", url)
    return service_factory(name, *args)


def request(sandbox: Sandbox, *buckets: str) -> dict[str, Any]:
    return {"step": "01.01", "sandbox": sandbox.ref(), "events": bucket_events(*buckets)}


def test_the_service_records_each_evaluation(
    store_url: str, service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox]
) -> None:
    a, _ = accounts
    service = start(service_factory, "recording", moto_server, store_url)
    try:
        passed = service.post(request(a, "alpha-bucket"), msg_id="msg_pass")
        failed = service.post(request(a, "beta-bucket"), msg_id="msg_fail")  # beta is in the other account
        assert (passed.json()["status"], failed.json()["status"]) == ("pass", "fail")
        health = service.http.get("/healthz").json()
        assert (health["status"], health["store"], health["sandbox"]["full"]) == ("ok", "ok", ROOT)  # full: root's
    finally:
        service.stop()
    store = RecordStore(open_engine(store_url))
    try:
        records = {r.request_id: r for r in store.select(lab="recorded")}
        assert set(records) == {"msg_pass", "msg_fail"}
        recorded = records["msg_pass"]
        assert (
            recorded.read_answer()["status"] == "pass" and recorded.read_context()["events"][0]["id"] == "alpha-bucket"
        )
        assert [x["operation"] for x in recorded.exchanges()] == ["GetCallerIdentity", "ListBuckets"]
        assert records["msg_fail"].issue == "no such bucket"
    finally:
        store.engine.dispose()


def test_two_instances_on_one_postgresql_evaluate_a_webhook_id_once(
    pg_store: str, service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox]
) -> None:
    a, _ = accounts
    one = start(service_factory, "one", moto_server, pg_store)
    two = start(service_factory, "two", moto_server, pg_store)
    try:
        for _ in range(3):
            msg_id, body = f"msg_{uuid.uuid4().hex}", json.dumps(request(a, "alpha-bucket")).encode()
            with ThreadPoolExecutor(4) as threads:
                sent = [threads.submit(s.post, body, msg_id=msg_id) for s in (one, two, one, two)]
                answers = [f.result() for f in sent]
            assert [r.status_code for r in answers] == [200] * 4
            assert len({r.text for r in answers}) == 1  # one answer, given by all
            other = json.dumps(request(a, "another-bucket")).encode()
            assert one.post(other, msg_id=msg_id).status_code == 409
            assert two.post(other, msg_id=msg_id).json()["error"]["code"] == "idempotency_conflict"
        store = RecordStore(open_engine(pg_store))
        try:
            ids = [r.request_id for r in store.select(lab="recorded")]
        finally:
            store.engine.dispose()
        assert len(ids) == 3 and len(set(ids)) == 3  # each evaluated once, by one of the two
        replays = one.metric("stepeval_idempotent_replays_total") + two.metric("stepeval_idempotent_replays_total")
        assert replays == 9
    finally:
        one.stop()
        two.stop()


def test_a_bad_store_url_stops_serve_with_one_line() -> None:
    env = {**os.environ, "STEPEVAL_WEBHOOK_SECRET": SECRET}
    for url, says in [
        ("postgresql://u:hunter2@127.0.0.1:1/x", "cannot reach"),
        ("oracle://x", "unsupported database 'oracle'"),
    ]:
        command = [sys.executable, "-c", LAUNCH, "serve", "--lab", LAB, "--port", "0", "--store", url]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 2
        assert "--store (STEPEVAL_STORE_URL)" in done.stderr and says in done.stderr
        assert "hunter2" not in done.stderr and "Traceback" not in done.stderr
        assert done.stderr.strip().count("\n") == 0, done.stderr


def test_when_the_store_goes_down_the_service_answers_and_says_so(
    service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox]
) -> None:
    a, _ = accounts
    with running_postgresql() as server:
        service = start(service_factory, "store-down", moto_server, pg_url(server, server.template_dbname))
        try:
            assert service.post(request(a, "alpha-bucket")).json()["status"] == "pass"
            assert service.http.get("/healthz").json()["store"] == "ok"
            server.stop()
            body = json.dumps(request(a, "alpha-bucket")).encode()
            first = service.post(body, msg_id="msg_while_down")
            again = service.post(body, msg_id="msg_while_down")  # idempotent still, within this instance
            assert first.status_code == again.status_code == 200 and first.json()["status"] == "pass"
            assert first.text == again.text
            health = service.http.get("/healthz").json()
            assert health["status"] == "ok" and health["store"].startswith("store unreachable")
            events = {line.get("event") for line in service.log_lines()}
            assert {"store_unreachable", "record_failed"} <= events
        finally:
            service.stop()
