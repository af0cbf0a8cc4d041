"""The boundary suite (tests/labs/boundary): attacks on the boundary beside the hostile suite's, each
through `stepeval run` (a real process) and through `stepeval serve` (real HTTP, a moto server, a record store),
against an account holding planted secrets and state. Each must fail safely: nothing written, no secret in any
answer, record or log, every evaluation recorded with the operations it made, the service's memory bounded (its
peak printed), and good evaluations beside the attacks unaffected."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import uuid
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.sandbox.audit import MAX_LOGGED
from harness.sandbox.redact import MARKER
from harness.store.engine import open_engine
from harness.store.records import RecordStore
from tests.conftest import LABS, STEPEVAL, MotoAccount, wipe
from tests.fixtures.modes import adopt, run_mode
from tests.fixtures.service import Sandbox, Service
from tests.sandbox.test_hostile import assert_nothing_left

pytestmark = pytest.mark.process  # `stepeval run` subprocesses of its own

LAB = LABS / "boundary"
SECRET = f"boundary-{uuid.uuid4().hex}"
SPELLED = ["eu-west-3", "ap-south-2", "me-central-1", "sa-east-1", "ca-central-1", "af-south-1", "eu-north-1",
           "ap-northeast-3"]  # fmt: skip
MIB = 1024 * 1024


@dataclass
class Planted:
    """What an account holds for the attacks: its state to keep, and the secrets to keep out."""

    clients: Any  # service -> a boto3 client acting in the account
    secrets: list[str]
    detector: str

    def state(self) -> dict[str, Any]:
        """What a write would change: the detector, EBS encryption by default, buckets, VPCs, functions."""
        return {
            "detector": self.clients("guardduty").get_detector(DetectorId=self.detector)["Status"],
            "ebs": self.clients("ec2").get_ebs_encryption_by_default()["EbsEncryptionByDefault"],
            "buckets": sorted(b["Name"] for b in self.clients("s3").list_buckets()["Buckets"]),
            "vpcs": sorted(v["VpcId"] for v in self.clients("ec2").describe_vpcs()["Vpcs"]),
            "functions": sorted(f["FunctionName"] for f in self.clients("lambda").list_functions()["Functions"]),
        }


def plant(clients: Any) -> Planted:
    """The account's secrets (every kind a read could reveal) and the state the attacks aim at."""
    detector = clients("guardduty").create_detector(Enable=True)["DetectorId"]
    clients("ec2").enable_ebs_encryption_by_default()
    clients("s3").create_bucket(Bucket="big-bucket")
    clients("s3").put_object(Bucket="big-bucket", Key="big", Body=b"x" * (8 * MIB))
    role = clients("iam").create_role(RoleName="fn", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as archive:
        archive.writestr("index.py", "def handler(event, context): return 1\n")
    clients("lambda").create_function(
        FunctionName="fn", Runtime="python3.12", Role=role, Handler="index.handler",
        Code={"ZipFile": code.getvalue()}, Environment={"Variables": {"DB_PASSWORD": SECRET}},
    )  # fmt: skip
    pool = clients("cognito-idp").create_user_pool(PoolName="learners")["UserPool"]["Id"]
    client = clients("cognito-idp").create_user_pool_client(UserPoolId=pool, ClientName="web", GenerateSecret=True)
    clients("glue").create_connection(ConnectionInput={
        "Name": "db", "ConnectionType": "JDBC",
        "ConnectionProperties": {"USERNAME": "admin", "PASSWORD": SECRET, "JDBC_CONNECTION_URL": "jdbc:x"},
    })  # fmt: skip
    user_data = base64.b64encode(f"export PASSWORD={SECRET}".encode()).decode()
    clients("ec2").create_launch_template(
        LaunchTemplateName="web", LaunchTemplateData={"InstanceType": "t3.micro", "UserData": user_data}
    )
    mfa = clients("iam").create_virtual_mfa_device(VirtualMFADeviceName="root-mfa")["VirtualMFADevice"]
    clients("ecs").register_task_definition(family="web", containerDefinitions=[
        {"name": "app", "image": "app:1", "memory": 128, "environment": [{"name": "DB_PASSWORD", "value": SECRET}]},
    ])  # fmt: skip
    clients("apigateway").create_api_key(name="partner", value=f"key{SECRET}", enabled=True)
    clients("ssm").put_parameter(Name="db-password", Value=SECRET, Type="SecureString")
    seed = base64.b64encode(mfa["Base32StringSeed"]).decode()
    return Planted(clients, [SECRET, client["UserPoolClient"]["ClientSecret"], seed, user_data], detector)


def assert_no_secret(planted: Planted, *texts: str) -> None:
    for text in texts:
        for secret in planted.secrets:
            assert secret not in text, "a planted secret leaked"


def assert_refused(answer: dict[str, Any], *kinds: str) -> None:
    assert answer["status"] == "error" and answer["error"]["kind"] in kinds, answer.get("error")


def operations(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return (answer.get("diagnostics") or {}).get("operations") or []


# What each attack must come to, whichever way it runs: (step, check of the answer).
def check_fragment(answer: dict[str, Any]) -> None:
    assert_refused(answer, "bad_request")
    assert "fragment" in json.dumps(operations(answer))


def check_query(answer: dict[str, Any]) -> None:
    assert_refused(answer, "bad_request")


def check_framing(answer: dict[str, Any]) -> None:
    assert_refused(answer, "bad_request", "read_only")
    assert any(op["status"] in (400, 501) for op in operations(answer))


def check_secrets_read(answer: dict[str, Any]) -> None:
    assert answer["status"] == "pass", answer.get("error")
    assert MARKER in answer["message"]  # what it read, secrets blanked


def check_secrets_asked(answer: dict[str, Any]) -> None:
    assert_refused(answer, "read_only")
    refused = {op["operation"] for op in operations(answer) if not op["allowed"]}
    assert refused >= {"GetParameterHistory", "GetApiKeys", "GetActivityTask", "ListUserPoolClientSecrets"}


def check_models(answer: dict[str, Any]) -> None:
    assert_refused(answer, "bad_request", "read_only")
    assert len(operations(answer)) <= MAX_LOGGED + 1
    assert any("more than" in op["detail"] and "services" in op["detail"] for op in operations(answer))


def check_log(answer: dict[str, Any]) -> None:
    assert_refused(answer, "read_only")
    assert len(operations(answer)) == MAX_LOGGED + 1 and "more requests" in operations(answer)[-1]["operation"]
    assert len(json.dumps(answer)) < 2 * MIB


def check_forged_kind(answer: dict[str, Any]) -> None:
    assert_refused(answer, "contract")
    assert [op["operation"] for op in operations(answer)] == ["ListBuckets"]


def check_in_flight(answer: dict[str, Any]) -> None:
    assert answer["status"] == "pass", answer.get("error")
    assert "GetObject" in [op["operation"] for op in operations(answer)]


CHECKS = {
    "01.01": check_fragment,
    "01.02": check_query,
    "01.03": check_framing,
    "02.01": check_secrets_read,
    "02.02": check_secrets_asked,
    "03.01": check_models,
    "03.02": check_log,
    "04.01": check_forged_kind,
    "04.02": lambda answer: assert_refused(answer, "contract"),
    "05.01": check_in_flight,
}


def check_no_channel(spelled: dict[str, Any], read: dict[str, Any]) -> None:
    """What the second evaluation finds warmed holds nothing the first one chose."""
    assert spelled["status"] == "pass" and read["status"] == "pass", (spelled, read)
    warmed = json.loads(read["message"])
    assert not any(region in json.dumps(warmed) for region in SPELLED), warmed


@pytest.fixture(scope="module", autouse=True)
def adopted() -> Iterator[None]:
    """Without root, what an evaluation leaves comes back below this run, where `assert_nothing_left` looks."""
    adopt()
    yield
    adopt(on=False)


# -- through `stepeval run` ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def planted_once(moto_server: str) -> Planted:
    """The account of the CLI attacks, wiped and planted once for all of them (a plant is some 40 calls the
    emulator answers in this process): each test compares its state before and after its own attack."""
    wipe(moto_server)
    return plant(MotoAccount(moto_server).client)


@pytest.fixture
def planted_here(planted_once: Planted) -> Iterator[Planted]:
    planted = planted_once
    before = planted.state()
    yield planted
    assert planted.state() == before, "something was written"
    assert_nothing_left(run_mode())  # the gateway and the parent are the same in every mode


def run_cli(step: str, endpoint: str, planted: Planted) -> dict[str, Any]:
    command = [STEPEVAL, "run", step, "--lab", str(LAB), "--endpoint-url", endpoint, "--context", "-"]
    done = subprocess.run(command, input="{}", capture_output=True, text=True, timeout=180)
    assert_no_secret(planted, done.stdout, done.stderr)
    return json.loads(done.stdout)


@pytest.mark.parametrize("step", sorted(CHECKS))
def test_cli_each_attack_fails_safely(step: str, planted_here: Planted, moto_server: str) -> None:
    CHECKS[step](run_cli(step, moto_server, planted_here))


def test_cli_a_module_cannot_leave_a_message_for_the_next_evaluation(planted_here: Planted, moto_server: str) -> None:
    check_no_channel(run_cli("06.01", moto_server, planted_here), run_cli("06.02", moto_server, planted_here))


# -- through the service --------------------------------------------------------------------------------------------


def peak_rss_mib(pid: int) -> tuple[float, float]:
    """The process's resident memory now and its peak (VmRSS, VmHWM), in MiB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


@pytest.fixture(scope="module")
def records_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('boundary') / 'records.db'}"


@pytest.fixture(scope="module")
def boundary_service(service_factory: Any, moto_server: str, records_url: str) -> Service:
    return service_factory(
        "boundary", "--lab", str(LAB), "--workers", "3", "--queue", "64", "--endpoint-url", moto_server,
        "--store", records_url,
    )  # fmt: skip


def ask(service: Service, account: Sandbox, step: str) -> dict[str, Any]:
    response = service.post({"step": step, "sandbox": account.ref(), "events": []})
    assert response.status_code == 200, response.text[:500]
    return response.json()


@pytest.mark.timeout(300)  # every attack beside good evaluations: 68 s measured at load 25
def test_service_every_attack_fails_safely_beside_good_evaluations(
    boundary_service: Service, accounts: tuple[Sandbox, Sandbox], records_url: str
) -> None:
    a, b = accounts
    planted = plant(a.learner)
    before = planted.state()
    rss_before, _ = peak_rss_mib(boundary_service.process.pid)
    steps = [*sorted(CHECKS), "03.03"]
    with ThreadPoolExecutor(4) as threads:
        attacks = threads.map(lambda step: (step, ask(boundary_service, a, step)), steps)
        good = [threads.submit(ask, boundary_service, b, "07.01") for _ in range(3)]
        answers = dict(attacks)
        beside = [future.result() for future in good]
    for step, check in CHECKS.items():
        check(answers[step])
    assert answers["03.03"]["status"] in ("pass", "error")  # 12 MiB: its size is another limit's (kind `answer`)
    assert all(g["status"] == "pass" and g["validated"][0]["id"] == "beta-bucket" for g in beside), beside
    bigs = [ask(boundary_service, a, "03.03") for _ in range(11)]  # twelve 12 MiB answers in all
    check_no_channel(ask(boundary_service, a, "06.01"), ask(boundary_service, b, "06.02"))

    assert planted.state() == before, "something was written"
    assert_nothing_left(run_mode())  # the gateway and the parent are the same in every mode
    texts = [json.dumps(answer) for answer in [*answers.values(), *beside]]
    assert_no_secret(planted, *texts, boundary_service.log_path.read_text(errors="replace"))
    store = RecordStore(open_engine(records_url))
    try:
        records = list(store.select(lab="boundary"))
        assert len(records) == len(steps) + len(beside) + len(bigs) + 2, "an evaluation was not recorded"
        assert_no_secret(planted, *(json.dumps([r.read_answer(), r.exchanges()]) for r in records))
        recorded = {r.request_id: r.read_answer() for r in records}
        assert any("GetObject" in json.dumps(answer) for answer in recorded.values())  # the read in flight
    finally:
        store.engine.dispose()
    rss_after, peak = peak_rss_mib(boundary_service.process.pid)
    print(
        f"\nthe service's memory: {rss_before:.0f} MiB before the attacks, {rss_after:.0f} MiB after, peak {peak:.0f}"
    )
    assert peak - rss_before < 768, (rss_before, peak)  # one request once added 1.27 GB; the models 377 MiB
    assert boundary_service.http.get("/healthz").status_code == 200
