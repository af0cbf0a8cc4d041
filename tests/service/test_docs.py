"""docs/service.md says what the service does: its complete request against moto runs as written (a platform
engineer can paste it), and its /readyz and /healthz bodies and its /metrics table name what a real service gives."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.fixtures.service import SECRET, Sandbox, Service, bucket_events

pytestmark = [pytest.mark.process, pytest.mark.moto]

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "service.md").read_text(encoding="utf-8")
MARKER = "<!-- tested: tests/service/test_docs.py runs the python block below -->"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def block_after(heading: str, language: str) -> str:
    """The first ```language block after `heading` in docs/service.md."""
    found = re.search(rf"```{language}\n(.*?)```", DOC[DOC.index(heading) :], re.DOTALL)
    assert found is not None, heading
    return found.group(1)


def test_the_complete_request_in_service_md_answers_pass(tmp_path: Path) -> None:
    script = block_after(MARKER, "python")
    assert "{...}" not in script and "whsec_..." not in script  # nothing to fill in
    (tmp_path / "try_service.py").write_text(script, encoding="utf-8")
    env = {**os.environ, "MOTO_PORT": str(free_port()), "SERVICE_PORT": str(free_port())}
    done = subprocess.run(
        [sys.executable, tmp_path / "try_service.py"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    first, whole = done.stdout.split("\n", 1)
    assert first == "pass - All 1 check passed."  # as the prose before the script says
    assert "It prints `pass - All 1 check passed.`," in DOC
    answer = json.loads(whole)
    assert answer["status"] == "pass" and answer["message"] == "All 1 check passed.", answer
    assert without_timings(answer) == without_timings(json.loads(block_after("## The answer", "json")))


def test_the_script_names_a_busy_port_and_sends_nothing_there(tmp_path: Path) -> None:
    """Another service on SERVICE_PORT: one line naming the port and the variable, no traceback, nothing sent."""
    script = block_after(MARKER, "python")
    (tmp_path / "try_service.py").write_text(script, encoding="utf-8")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = {**os.environ, "MOTO_PORT": str(free_port()), "SERVICE_PORT": str(port)}
        done = subprocess.run(
            [sys.executable, tmp_path / "try_service.py"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == f"port {port} is in use (another service listens there): set SERVICE_PORT to a free port\n"


def test_the_script_saved_where_the_docs_say_is_not_linted() -> None:
    """Saved as try_service.py at the repository root, `make lint` (ruff) leaves it alone: git ignores it."""
    ignored = subprocess.run(["git", "check-ignore", "-q", "try_service.py"], cwd=REPO)
    assert ignored.returncode == 0


def without_timings(answer: dict) -> dict:
    """The answer, its durations, request id and lab version (a hash of the lab's files, which change) left out:
    what one run answers is what the next does."""
    assert re.fullmatch(r"[0-9a-f]{16}", answer["lab_version"]), answer["lab_version"]
    left_out = ("duration_ms", "request_id", "lab_version")
    kept = {name: value for name, value in answer.items() if name not in left_out}
    if kept.get("diagnostics"):
        operations = [{k: v for k, v in op.items() if k != "ms"} for op in kept["diagnostics"]["operations"]]
        kept["diagnostics"] = {**kept["diagnostics"], "operations": operations}
    return kept


def test_the_probe_bodies_in_service_md_are_the_service_s(service: Service) -> None:
    ready = json.loads(block_after("`GET /readyz`, a service started", "json"))
    health = json.loads(block_after("`GET /healthz`, a service in mode", "json"))
    real_ready, real_health = service.http.get("/readyz").json(), service.http.get("/healthz").json()
    assert set(ready) == set(real_ready)
    assert set(health) == set(real_health) - {"store"}  # "store" only with a store, as the text says
    assert set(health["sandbox"]) == set(real_health["sandbox"])
    for name in ready:
        assert f"`{name}`" in DOC, f"/readyz's {name} is not explained"


def documented_metrics() -> dict[str, set[str]]:
    """docs/service.md's /metrics table: each metric and the labels it names."""
    table = DOC[DOC.index("| metric | labels | meaning |") :].split("\n\n", 1)[0]
    metrics = {}
    for row in table.splitlines()[2:]:
        name, labels = (cell.strip() for cell in row.strip("|").split("|")[:2])
        metrics[name.strip("`")] = set(re.findall(r"`(\w+)`", labels))
    return metrics


def test_the_metrics_table_in_service_md_names_every_metric_and_its_labels(
    service: Service, accounts: tuple[Sandbox, Sandbox]
) -> None:
    body = {"step": "01.01", "sandbox": accounts[0].ref(), "events": bucket_events("alpha-bucket")}
    assert service.post(body).status_code == 200  # an answer, an assumed role
    assert service.post(body, headers={"webhook-signature": "v1,bad"}).status_code == 401  # a refusal
    real: dict[str, set[str]] = {}
    for line in service.http.get("/metrics", params={"n": uuid.uuid4().hex}).text.splitlines():
        if line.startswith("stepeval_"):
            sample = re.match(r"(\w+)(?:\{(.*)\})? ", line)
            assert sample is not None, line
            name = re.sub(r"_(bucket|sum|count)$", "", sample.group(1))
            real.setdefault(name, set()).update(re.findall(r'(\w+)="', sample.group(2) or ""))
    assert documented_metrics() == real


def test_the_openapi_example_is_the_answer_in_service_md(service: Service) -> None:
    """/openapi.json's example answer is the one docs/service.md shows (a real one: see above), its nulls aside
    (FastAPI leaves them out of the schema)."""
    responses = service.http.get("/openapi.json").json()["paths"]["/v1/evaluations"]["post"]["responses"]["200"]
    shown = responses["content"]["application/json"]["examples"]["pass"]["value"]
    documented = json.loads(block_after("## The answer", "json"))
    assert shown == {name: value for name, value in documented.items() if value is not None}
    assert "pending" in responses["description"]


CURL_MARKER = "<!-- tested: tests/service/test_docs.py runs the sh block below against a real stepeval serve -->"


def test_the_curl_example_answers_as_a_signed_request_does(
    service: Service, accounts: tuple[Sandbox, Sandbox], tmp_path: Path
) -> None:
    """The sh block pasted as written (only the service's address is this test's): stepeval sign's headers, curl,
    the answer; then the body re-serialised after signing is refused with that cause."""
    script = block_after(CURL_MARKER, "sh").replace("http://127.0.0.1:8080", service.url)
    alpha, _ = accounts
    request = {"step": "01.01", "sandbox": alpha.ref(), "events": bucket_events("alpha-bucket")}
    (tmp_path / "request.json").write_text(json.dumps(request, indent=2) + "\n")
    env = {
        **os.environ,
        "STEPEVAL_WEBHOOK_SECRET": SECRET,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
    }
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["status"] == "pass" and "alpha-bucket" in answer["message"], answer
    signed = subprocess.run(["stepeval", "sign", "request.json"], cwd=tmp_path, env=env, capture_output=True, text=True)
    headers = dict(line.split(": ", 1) for line in signed.stdout.splitlines())
    compact = json.dumps(request).encode()  # what a client sends after signing its file: another rendering
    refused = service.http.post(
        "/v1/evaluations", content=compact, headers={**headers, "content-type": "application/json"}
    )
    assert refused.status_code == 401
    assert refused.json()["error"]["message"] == (
        "webhook-signature: signature does not match: signed another serialisation of the body than the bytes sent:"
        " sign the exact bytes you send"
    )
    assert SECRET.removeprefix("whsec_") not in refused.text


def test_the_admin_reload_in_operating_md_runs_as_written(service: Service, tmp_path: Path) -> None:
    """docs/operating.md's reload, pasted as written (only the service's address is this test's): `stepeval sign`
    and curl, answered with what the reload changed."""
    operating = (REPO / "docs" / "operating.md").read_text(encoding="utf-8")
    found = re.search(r"```sh\n(.*?)```", operating[operating.index(CURL_MARKER) :], re.DOTALL)
    assert found is not None
    script = found.group(1).replace("http://127.0.0.1:8080", service.url)
    env = {
        **os.environ,
        "STEPEVAL_WEBHOOK_SECRET": SECRET,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
    }
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert (outcome["changed"], outcome["problems"]) == ([], []), outcome
    assert [lab["lab"] for lab in outcome["labs"]] == ["service-tests"]
