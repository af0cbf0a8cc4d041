"""Many labs in one service (`--labs DIR`), their versions, and live reloads (SIGHUP, the signed admin request), over
real HTTP on a real `stepeval serve` process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from harness.service.webhooks import sign
from harness.store.engine import open_engine
from harness.store.records import RecordStore
from tests.conftest import STEPEVAL
from tests.fixtures.service import SECRET, Sandbox, Service, bucket_events, make_labs

RELOAD_TIMEOUT_S = 60


def hook(sandbox: Sandbox, lab: str | None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"step": "01.01", "sandbox": sandbox.ref(), "events": bucket_events("alpha-bucket")}
    if lab is not None:
        body["lab"] = lab
    return {**body, **extra}


def versions(service: Service) -> dict[str, str]:
    return {lab["lab"]: lab["version"] for lab in service.http.get("/readyz").json()["labs"]}


def wait_for_version(service: Service, lab: str, old: str) -> str:
    ends = time.monotonic() + RELOAD_TIMEOUT_S
    while time.monotonic() < ends:
        version = versions(service)[lab]
        if version != old:
            return version
        time.sleep(0.1)
    raise AssertionError(f"{lab} still serves {old}: {service.http.get('/readyz').text}")


def admin_reload(service: Service, *, secret: str = SECRET) -> httpx.Response:
    raw = b"{}"
    headers = {**sign(secret, f"msg_{uuid.uuid4().hex}", raw), "content-type": "application/json"}
    return service.http.post("/v1/admin/reload", content=raw, headers=headers, timeout=RELOAD_TIMEOUT_S)


def test_every_lab_under_the_directory_answers_hooks_of_its_own(
    service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    labs = make_labs(tmp_path / "labs")
    store = f"sqlite:///{tmp_path / 'records.db'}"
    service = service_factory(
        "labs", "--labs", str(labs), "--workers", "2", "--endpoint-url", moto_server, "--store", store
    )
    ready = service.http.get("/readyz").json()
    assert [lab["lab"] for lab in ready["labs"]] == ["lab-alpha", "lab-beta", "lab-gamma"]
    assert all(lab["steps"] == 3 and len(lab["version"]) == 16 for lab in ready["labs"])
    assert ready["lab"] is None and ready["steps"] == 9 and ready["lab_problems"] == []
    answered = {}
    for name in ("lab-alpha", "lab-beta", "lab-gamma"):
        answer = service.post(hook(accounts[0], name)).json()
        assert (answer["status"], answer["lab"]) == ("pass", name)
        assert answer["lab_version"] == versions(service)[name]
        answered[answer["request_id"]] = (name, answer["lab_version"])
    engine = open_engine(store)
    try:
        recorded = {r.request_id: (r.lab, r.lab_version) for r in RecordStore(engine).select()}
    finally:
        engine.dispose()
    assert recorded == answered  # each evaluation kept with its lab and the version that judged it
    assert service.metric("stepeval_answers_total", lab="lab-beta", status="pass", kind="none") == 1

    unknown = service.post(hook(accounts[0], "lab-delta"))
    assert unknown.status_code == 422
    error = unknown.json()["error"]
    assert (error["code"], error["field"]) == ("unknown_lab", "lab")
    assert "lab-alpha, lab-beta, lab-gamma" in error["message"]
    near = service.post(hook(accounts[0], "lab-alpa")).json()["error"]
    assert "did you mean lab-alpha?" in near["message"]
    unnamed = service.post(hook(accounts[0], None))
    assert unnamed.status_code == 422 and unnamed.json()["error"]["field"] == "lab"
    assert "serves 3 labs" in unnamed.json()["error"]["message"]


def test_a_changed_module_serves_after_sighup_while_the_old_version_stays_pinnable(
    service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    labs = make_labs(tmp_path / "labs")
    service = service_factory(
        "reload", "--labs", str(labs), "--workers", "2", "--queue", "64", "--endpoint-url", moto_server
    )
    sandbox = accounts[0]
    before = service.post(hook(sandbox, "lab-alpha")).json()
    assert before["status"] == "pass"
    old = before["lab_version"]
    untouched = versions(service)["lab-beta"]

    module = labs / "alpha" / "evaluation" / "boto3" / "01_01.py"  # the new version finds no bucket: a fail
    module.write_text(module.read_text().replace("found = next(", "found = None and next("))
    with ThreadPoolExecutor(50) as threads:
        during = [threads.submit(service.post, hook(sandbox, "lab-alpha")) for _ in range(25)]
        service.process.send_signal(signal.SIGHUP)
        during += [threads.submit(service.post, hook(sandbox, "lab-beta")) for _ in range(25)]
        responses = [future.result() for future in during]
    assert [response.status_code for response in responses] == [200] * 50
    new = wait_for_version(service, "lab-alpha", old)
    for answer in (response.json() for response in responses[:25]):  # each judged by the version it names
        assert answer["status"] == {old: "pass", new: "fail"}[answer["lab_version"]], answer

    after = service.post(hook(sandbox, "lab-alpha")).json()
    assert (after["lab_version"], after["status"]) == (new, "fail")
    pinned = service.post(hook(sandbox, "lab-alpha", lab_version=old)).json()
    assert (pinned["lab_version"], pinned["status"]) == (old, "pass")
    assert versions(service)["lab-beta"] == untouched

    gone = service.post(hook(sandbox, "lab-alpha", lab_version="0123456789abcdef"))
    assert gone.status_code == 409
    assert gone.json()["error"]["code"] == "unknown_lab_version"
    assert new in gone.json()["error"]["message"] and old in gone.json()["error"]["message"]
    lines = [line for line in service.log_lines() if line.get("event") == "reload"]
    assert lines and lines[-1]["reason"] == "sighup" and lines[-1]["changed"] == [f"lab-alpha@{new}"]


def test_the_signed_admin_reload_keeps_the_previous_version_of_a_lab_that_fails_to_load(
    service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    labs = make_labs(tmp_path / "labs")
    service = service_factory("admin", "--labs", str(labs), "--workers", "2", "--endpoint-url", moto_server)
    serving = versions(service)["lab-gamma"]
    forged = admin_reload(service, secret="whsec_" + "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB")
    assert forged.status_code == 401

    spec = labs / "gamma" / "specs" / "service-tests.yaml"
    spec.write_text(spec.read_text().replace("objectives:", "objectivez:"))
    broken_module = labs / "beta" / "evaluation" / "boto3" / "01_02.py"
    broken_module.write_text("import no_such_module_anywhere\n")
    reloaded = admin_reload(service)
    assert reloaded.status_code == 200, reloaded.text
    outcome = reloaded.json()
    assert outcome["changed"] == []
    assert any("gamma" in problem for problem in outcome["problems"])
    assert any("01_02.py" in problem and "no_such_module_anywhere" in problem for problem in outcome["problems"])

    ready = {lab["lab"]: lab for lab in service.http.get("/readyz").json()["labs"]}
    assert ready["lab-gamma"]["version"] == serving and "objectivez" not in json.dumps(ready["lab-beta"])
    assert ready["lab-gamma"]["reload_problem"] and ready["lab-beta"]["reload_problem"]
    answer = service.post(hook(accounts[0], "lab-gamma")).json()
    assert (answer["status"], answer["lab_version"]) == ("pass", serving)
    assert service.metric("stepeval_reloads_total", outcome="problems") == 1


def test_with_one_lab_the_name_is_optional_and_checked_when_given(
    service: Service, accounts: tuple[Sandbox, Sandbox]
) -> None:
    named = service.post(hook(accounts[0], "service-tests"))
    assert named.status_code == 200 and named.json()["lab"] == "service-tests"
    assert service.post(hook(accounts[0], None)).json()["lab"] == "service-tests"
    other = service.post(hook(accounts[0], "web-tier")).json()["error"]
    assert (other["code"], other["field"]) == ("unknown_lab", "lab") and "(labs: service-tests)" in other["message"]
    version = named.json()["lab_version"]
    upper = service.post(hook(accounts[0], None, lab_version=version.upper())).json()  # either case, answered lower
    assert upper["lab_version"] == version and upper["status"] == "pass"
    malformed = service.post(hook(accounts[0], None, lab_version="not-a-version")).json()["error"]
    assert (malformed["status"], malformed["field"]) == (422, "lab_version")
    assert "16 hex digits" in malformed["message"]


def test_a_lab_broken_at_start_is_not_served_and_readiness_says_so_until_a_reload_serves_it(
    service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    labs = make_labs(tmp_path / "labs")
    spec = labs / "gamma" / "specs" / "service-tests.yaml"
    good_spec = spec.read_text()
    spec.write_text(good_spec.replace("objectives:", "objectivez:"))
    module = labs / "beta" / "evaluation" / "boto3" / "01_02.py"
    module.write_text("import no_such_module_anywhere\n")  # an author's bug, served (its steps answer `load`)
    service = service_factory("degraded", "--labs", str(labs), "--workers", "2", "--endpoint-url", moto_server)

    ready = service.http.get("/readyz")
    assert ready.status_code == 503 and ready.json()["status"] == "degraded"
    assert [lab["lab"] for lab in ready.json()["labs"]] == ["lab-alpha", "lab-beta"]
    assert len(ready.json()["lab_problems"]) == 1 and "gamma" in ready.json()["lab_problems"][0]
    assert service.post(hook(accounts[0], "lab-alpha")).json()["status"] == "pass"  # the others are served
    unknown = service.post(hook(accounts[0], "lab-gamma"))
    assert unknown.status_code == 422 and unknown.json()["error"]["code"] == "unknown_lab"
    broken = service.post(hook(accounts[0], "lab-beta", step="01.02")).json()
    assert (broken["status"], broken["error"]["kind"]) == ("error", "load")
    assert "no_such_module_anywhere" in broken["error"]["detail"]
    assert "will not help" in broken["message"] and "try again in a moment" not in broken["message"]

    spec.write_text(good_spec)
    reloaded = admin_reload(service)
    assert reloaded.status_code == 200 and reloaded.json()["problems"] == [], reloaded.text
    ready = service.http.get("/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"
    assert service.post(hook(accounts[0], "lab-gamma")).json()["status"] == "pass"


def test_a_lab_directory_removed_keeps_its_last_version_serving_and_says_so(
    service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    labs = make_labs(tmp_path / "labs")
    service = service_factory("gone", "--labs", str(labs), "--workers", "2", "--endpoint-url", moto_server)
    serving = versions(service)["lab-beta"]
    shutil.rmtree(labs / "beta")
    outcome = admin_reload(service).json()
    gone = f"{labs / 'beta'}: directory gone: still serving the last version"
    assert outcome["problems"] == [gone] and outcome["changed"] == []
    ready = service.http.get("/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"  # serving what it served
    beta = {lab["lab"]: lab for lab in ready.json()["labs"]}["lab-beta"]
    assert (beta["version"], beta["reload_problem"]) == (serving, gone)
    assert ready.json()["lab_problems"] == [gone]
    answer = service.post(hook(accounts[0], "lab-beta")).json()
    assert (answer["status"], answer["lab_version"]) == ("pass", serving)


def test_the_admin_reload_refuses_a_body_it_would_ignore(service: Service) -> None:
    for raw, status, field in ((b'{"lab": "web-tier"}', 422, "lab"), (b"[]", 422, "body"), (b"lab", 400, "body")):
        headers = {**sign(SECRET, f"msg_{uuid.uuid4().hex}", raw), "content-type": "application/json"}
        refused = service.http.post("/v1/admin/reload", content=raw, headers=headers)
        assert refused.status_code == status, refused.text
        assert refused.json()["error"]["field"] == field
        if field == "lab":
            assert "takes no fields" in refused.json()["error"]["message"]
    assert admin_reload(service).status_code == 200  # `{}` reloads every lab


def test_a_lab_directory_renamed_with_the_same_files_is_no_change_and_no_duplicate_series(
    service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    labs = make_labs(tmp_path / "labs")
    service = service_factory("renamed", "--labs", str(labs), "--workers", "2", "--endpoint-url", moto_server)
    first = versions(service)["lab-alpha"]
    module = labs / "alpha" / "evaluation" / "boto3" / "01_02.py"
    module.write_text(module.read_text() + "\n# second\n")
    second = admin_reload(service).json()["changed"][0].split("@")[1]

    (labs / "alpha").rename(tmp_path / "alpha-release")  # rm, then a symlink under another name: the same files
    assert admin_reload(service).json()["changed"] == []
    (labs / "alpha-v2").symlink_to(tmp_path / "alpha-release")
    outcome = admin_reload(service).json()
    assert (outcome["changed"], outcome["problems"]) == ([], [])
    alpha = {lab["lab"]: lab for lab in service.http.get("/readyz").json()["labs"]}["lab-alpha"]
    assert alpha["versions"] == [second, first] and alpha["directory"] == str(labs / "alpha-v2")
    pinned = service.post(hook(accounts[0], "lab-alpha", lab_version=first)).json()
    assert (pinned["status"], pinned["lab_version"]) == ("pass", first)  # the version before still held

    families = list(text_string_to_metric_families(service.http.get("/metrics").text))
    samples = [(sample.name, tuple(sorted(sample.labels.items()))) for f in families for sample in f.samples]
    assert len(samples) == len(set(samples)), [s for s in samples if samples.count(s) > 1]
    assert service.metric("stepeval_lab_version", lab="lab-alpha", version=second) == 1
    assert service.metric("stepeval_lab_version", lab="lab-alpha", version=first) == 0


def test_an_empty_reload_body_signed_by_stepeval_sign_reloads(service: Service, tmp_path: Path) -> None:
    """docs/operating.md: the reload's body is `{}` or empty; `stepeval sign` signs the empty one too."""
    (tmp_path / "empty.json").write_bytes(b"")
    env = {**os.environ, "STEPEVAL_WEBHOOK_SECRET": SECRET}
    signed = subprocess.run(
        [STEPEVAL, "sign", "empty.json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert signed.returncode == 0, signed.stderr
    headers = dict(line.split(": ", 1) for line in signed.stdout.splitlines())
    reloaded = service.http.post(
        "/v1/admin/reload", content=b"", headers={**headers, "content-type": "application/json"}, timeout=60
    )
    assert reloaded.status_code == 200, reloaded.text
    assert reloaded.json()["request_id"] == headers["webhook-id"]
    unsigned = service.http.post("/v1/admin/reload", content=b"", headers={"content-type": "application/json"})
    assert unsigned.status_code == 401 and "stepeval sign BODY" in unsigned.json()["error"]["message"]


def test_a_reload_whose_modules_hang_at_import_takes_no_worker_from_the_hooks(
    service_factory: Any, moto_server: str, accounts: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    labs = make_labs(tmp_path / "labs")
    service = service_factory(
        "reload-hang", "--labs", str(labs), "--workers", "1", "--deadline", "5", "--endpoint-url", moto_server
    )
    sandbox = accounts[0]
    sandbox.learner("s3").create_bucket(Bucket="alpha-bucket")
    spec = labs / "alpha" / "specs" / "service-tests.yaml"  # its import checked until the step's timeout, 8 s:
    spec.write_text(spec.read_text().replace("timeout: 10", "timeout: 8"))  # a hook waiting for it ends past 5 s
    module = labs / "alpha" / "evaluation" / "boto3" / "01_01.py"
    module.write_text("import time\ntime.sleep(600)\n" + module.read_text())
    with ThreadPoolExecutor(1) as threads:
        reloading = threads.submit(admin_reload, service)
        time.sleep(1)  # the reload's read and copy are done: it is importing alpha's modules
        answer = service.post(hook(sandbox, "lab-beta")).json()
        outcome = reloading.result().json()
    assert answer["status"] == "pass", answer
    assert answer["duration_ms"] < 5_000, answer  # within the deadline: it never waited for the reload's check
    assert "importing it failed: no answer within 8 s" in outcome["problems"][0], outcome


def test_a_signed_reload_sent_again_answers_as_it_did_and_reads_nothing(
    service_factory: Any, moto_server: str, tmp_path: Path
) -> None:
    labs = make_labs(tmp_path / "labs")
    service = service_factory("reload-replay", "--labs", str(labs), "--workers", "1", "--endpoint-url", moto_server)
    raw = b"{}"
    captured = {**sign(SECRET, f"msg_{uuid.uuid4().hex}", raw), "content-type": "application/json"}
    first = service.http.post("/v1/admin/reload", content=raw, headers=captured, timeout=RELOAD_TIMEOUT_S)
    assert first.status_code == 200 and first.json()["changed"] == [], first.text
    serving = versions(service)["lab-alpha"]
    module = labs / "alpha" / "evaluation" / "boto3" / "01_02.py"
    module.write_text(module.read_text() + "\n# half-deployed\n")
    with ThreadPoolExecutor(20) as threads:  # the captured request replayed, a storm of it
        again = list(
            threads.map(lambda _: service.http.post("/v1/admin/reload", content=raw, headers=captured), range(20))
        )
    assert {(response.status_code, response.text) for response in again} == {(200, first.text)}
    assert versions(service)["lab-alpha"] == serving  # nothing read
    assert [line["reason"] for line in service.log_lines() if line.get("event") == "reload"] == ["admin"]
    changed = admin_reload(service).json()["changed"]  # signed again: a reload of its own
    assert changed == [f"lab-alpha@{versions(service)['lab-alpha']}"] and versions(service)["lab-alpha"] != serving
