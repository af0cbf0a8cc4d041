"""Shared fixtures: dummy credentials, a loopback-only network, one moto server, one worker pool."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import boto3
import pytest
from hypothesis import settings
from moto.server import ThreadedMotoServer

from harness.commands.pytest_plugin import ScenarioItem
from harness.core import netguard
from harness.core.account import Account, Credentials
from harness.core.lab import Lab, load_lab
from harness.inside.link import GatewayLink
from harness.inside.session import GatewaySession
from harness.sandbox.confine import UID_BASE, UID_BASE_ENV, UID_SPAN
from harness.sandbox.gateway import Gateway
from harness.sandbox.pool import PRELOAD_ENV, WorkerPool
from harness.sandbox.runner import Runner

LABS = Path(__file__).parent / "labs"
# Fixtures every part of the suite may use: a real `stepeval serve` with two accounts, a real PostgreSQL server, a
# headless chromium; the markers, put on each test from the fixtures it uses and checked (tests/fixtures/markers.py).
pytest_plugins = [
    "tests.fixtures.needs",
    "tests.fixtures.markers",
    "tests.fixtures.schedule",
    "tests.fixtures.service",
    "tests.fixtures.store",
]
# Property tests judge behaviour, not speed: no per-example deadline (a shared, loaded machine made them flake), and
# under CI the same examples every run, so that a red CI names a failure the next session can replay.
settings.register_profile("stepeval", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "stepeval")
STEPEVAL = str(Path(sys.executable).parent / "stepeval")  # the console script of the venv running the tests
# What `stepeval run` prints, written out (not derived from the model) so that a change to the answer shows here.
ANSWER_KEYS = frozenset(
    {
        "step",
        "status",
        "success",
        "message",
        "validated",
        "failure_context",
        "error",
        "resolved",
        "progress",
        "retry_after_s",
        "duration_ms",
        "diagnostics",
    }
)
REGION = "us-east-1"

# Before any client or worker exists: dummy credentials, no real AWS config, the guard in every worker.
os.environ.update(
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_SESSION_TOKEN="testing",
    AWS_DEFAULT_REGION=REGION,
    AWS_CONFIG_FILE=os.devnull,
    AWS_SHARED_CREDENTIALS_FILE=os.devnull,
    AWS_EC2_METADATA_DISABLED="true",
)
os.environ[PRELOAD_ENV] = "harness.core.netguard"
# This run's evaluation uids, apart from any other harness (or test run) on the machine.
os.environ[UID_BASE_ENV] = str(UID_BASE + (os.getpid() % 9000) * UID_SPAN)
for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL"):
    os.environ.pop(name, None)
# Every temporary file of this run and of what it starts (the harness's gateway and root directories, those of a
# process a test killed among them) in one directory of its own, removed when the run ends: nothing left in /tmp.
RUN_TMP = tempfile.mkdtemp(prefix="stepeval-tests-", dir="/tmp")
os.chmod(RUN_TMP, 0o1777)  # as /tmp is: the unprivileged mode's uid, the evaluations' and PostgreSQL's write here
os.environ["TMPDIR"] = tempfile.tempdir = RUN_TMP
atexit.register(shutil.rmtree, RUN_TMP, ignore_errors=True)


def pytest_unconfigure() -> None:
    """Where the process ends without running atexit (a pytest-xdist worker leaves by os._exit)."""
    shutil.rmtree(RUN_TMP, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The groups `make test` hands out whole to its workers (`--dist loadgroup`): a test file, so that its module's
    servers start once, or one sandbox mode of it where a file runs in several (the hostile suite's three), or a
    lab's scenarios, all its files' (the pytest plugin plays a lab once in each process that runs one of its
    scenarios, every step of it: two workers played each lab whole)."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            callspec = getattr(item, "callspec", None)
            mode = callspec.params.get("mode") if callspec is not None else None
            group = item.nodeid.split("::")[0] + (f"[{mode}]" if isinstance(mode, str) else "")
            if isinstance(item, ScenarioItem):
                group = f"the scenarios of lab {item.lab_root.relative_to(config.rootpath).as_posix()}"
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True)
def loopback_only() -> Iterator[None]:
    """Fail any test that tried to reach past loopback, even if the code under test swallowed the error."""
    before = len(netguard.refused)
    yield
    leaked = netguard.refused[before:]
    assert not leaked, f"the test tried to leave loopback: {leaked}"


@pytest.fixture(scope="session")
def moto_server() -> Iterator[str]:
    """One moto server on loopback for the whole run; tests reset it through `moto_url`."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


RESET_TIMEOUT_S = 120  # only guards a hang: a reset waits behind other tests' requests on a loaded machine


def wipe(moto_url: str) -> None:
    """Every account's state on the moto server dropped (`POST /moto-api/reset`)."""
    reset = urllib.request.Request(f"{moto_url}/moto-api/reset", method="POST")
    with urllib.request.urlopen(reset, timeout=RESET_TIMEOUT_S):
        pass


@pytest.fixture
def moto_url(moto_server: str) -> str:
    """The moto server, wiped clean for this test."""
    wipe(moto_server)
    return moto_server


class MotoAccount:
    """Plain boto3 clients on the moto server, for seeding and inspecting state the way a learner would."""

    def __init__(self, endpoint_url: str) -> None:
        self.endpoint_url = endpoint_url
        self._session = boto3.Session(region_name=REGION)

    def client(self, service: str):
        return self._session.client(service, endpoint_url=self.endpoint_url)


@pytest.fixture
def aws(moto_url: str) -> MotoAccount:
    """The learner's account, freshly reset."""
    return MotoAccount(moto_url)


@pytest.fixture
def sandbox(moto_url: str) -> Account:
    """What the runner hands workers to reach the moto server."""
    return Account(Credentials("testing", "testing"), REGION, moto_url)


@pytest.fixture(scope="session")
def gateway() -> Iterator[Gateway]:
    """The read-only gateway, as the harness runs it, for tests that talk to it without a worker."""
    with Gateway() as running:
        yield running


@contextmanager
def gateway_session(gateway: Gateway, spec: Account) -> Iterator[tuple[GatewaySession, str]]:
    """What an evaluation process holds for one evaluation in `spec`'s account: a link to the gateway, and the
    session on it; with the evaluation's token (finished after)."""
    token = gateway.open(spec)
    link = GatewayLink()
    link.attach(gateway.socket_path, token)
    try:
        yield GatewaySession(link, spec.region), token
    finally:
        gateway.finish(token)


@pytest.fixture(scope="session")
def pool() -> Iterator[WorkerPool]:
    """Two warm workers shared by the whole run (as the service would hold them)."""
    with WorkerPool(2) as workers:
        workers.start()
        yield workers


@pytest.fixture(scope="session")
def seed_lab() -> Lab:
    return load_lab(LABS / "seed_examples")


@pytest.fixture(scope="session")
def misbehaving_lab() -> Lab:
    return load_lab(LABS / "misbehaving")


@pytest.fixture
def seed_runner(seed_lab: Lab, pool: WorkerPool) -> Runner:
    return Runner(seed_lab, pool)


@pytest.fixture
def misbehaving_runner(misbehaving_lab: Lab, pool: WorkerPool) -> Runner:
    return Runner(misbehaving_lab, pool)
