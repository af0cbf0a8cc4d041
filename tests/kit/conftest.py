"""Kit test helpers: a tiny lab of fake resource types, and a fake account whose resources are plain dicts."""

from __future__ import annotations

import inspect
import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from harness.core.contract import Answer, ContextInput, build_context, check_result
from harness.core.lab import Lab, StepSpec, load_lab
from harness.core.readonly import is_read
from harness.kit.aws import fetch_or_none
from harness.kit.kinds import Kind
from harness.kit.require import Requirement

WIDGET = "AWS::EC2::Instance"  # real types (specs are checked), standing for made-up kinds
GADGET = "AWS::EC2::Volume"

# 01.01 makes one widget; 01.02 takes it as input and makes two gadgets (two outputs of one type).
TINY_LAB_SPEC = f"""\
project: kit-tests
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs:
          - {{name: 01_01_widget, type: {WIDGET}}}
      - id: "02"
        inputs: [01_01_widget]
        outputs:
          - {{name: 01_02_a, type: {GADGET}}}
          - {{name: 01_02_b, type: {GADGET}}}
"""


# A table, then a role that works on it: the least-privilege tests' lab.
TABLE_AND_ROLE_SPEC = """\
project: kit-services
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs:
          - {name: 01_01_table, type: AWS::DynamoDB::Table}
      - id: "02"
        inputs: [01_01_table]
        outputs:
          - {name: 01_02_role, type: AWS::IAM::Role}
"""


def write_tiny_lab(root: Path) -> Lab:
    (root / "specs").mkdir(parents=True)
    (root / "specs" / "kit-tests.yaml").write_text(TINY_LAB_SPEC, encoding="utf-8")
    return load_lab(root)


@pytest.fixture(scope="session")
def tiny_lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    return write_tiny_lab(tmp_path_factory.mktemp("tiny-lab"))


def client_error(code: str, operation: str = "DescribeThings") -> ClientError:
    """A ClientError as botocore raises it for `code`."""
    return ClientError({"Error": {"Code": code, "Message": f"{code} message"}, "ResponseMetadata": {}}, operation)


class FakeAccount:
    """Resources by id; `kind()` builds a Kind whose fetch reads them and counts calls per id.

    A value may be a dict (the resource), None or absent (an empty answer), or a ClientError (raised).
    """

    def __init__(self) -> None:
        self.resources: dict[str, Any] = {}
        self.calls: Counter[str] = Counter()

    def fetch(self, session: Any, resource_id: str) -> dict[str, Any] | None:
        self.calls[resource_id] += 1
        value = self.resources.get(resource_id)
        if isinstance(value, ClientError):
            raise value
        return value

    def kind(self, type_: str, noun: str) -> Kind:
        return Kind(type_, noun, self.fetch)


@pytest.fixture
def account() -> FakeAccount:
    return FakeAccount()


@pytest.fixture
def no_retry_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    """Event ids are retried on NotFound; make those retries instant (same number of attempts)."""
    monkeypatch.setattr("harness.kit.aws.RETRY_DELAYS_S", (0.0, 0.0, 0.0, 0.0))


def make_context(
    spec: StepSpec,
    *,
    resolved: Sequence[tuple[str, str]] = (),
    events: Sequence[tuple[str, str]] = (),
    feedback: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The context `run()` gets: resolved (name, id) handles, events (type, id), and the step's spec slice."""
    types = {**spec.input_types, **spec.output_types}
    raw = {
        "resolved": [{"name": name, "type": types[name], "id": rid} for name, rid in resolved],
        "events": [{"type": type_, "id": rid} for type_, rid in events],
    }
    context = build_context(ContextInput.model_validate(raw), spec)
    if feedback is not None:
        context["spec"]["feedback"] = dict(feedback)
    return context


def held_to_contract(result: dict[str, Any], spec: StepSpec) -> Answer:
    """The Answer for `result`; raises ContractViolation if the kit produced something the contract refuses."""
    return check_result(result, spec, 1.0)


@pytest.fixture(scope="module")
def aws_session() -> Iterator[Any]:
    """One in-process moto account for a test module, and a plain boto3 Session on it (tests name their resources
    uniquely, so they do not see each other's). Every call the kit makes through it must be one the harness's
    read-only guard lets through: checked after each test (`kit_calls_only_read`)."""
    with mock_aws():
        session = boto3.Session(region_name="us-east-1")
        session.events.register("before-call", _note_kit_writes)
        yield session


KIT_DIR = str(Path(__file__).resolve().parents[2] / "harness" / "kit")
kit_writes: list[str] = []


def _note_kit_writes(model: Any, **_: Any) -> None:
    """Note a call made from harness/kit that the read-only guard would refuse (the test itself may write)."""
    service = model.service_model.service_name
    if not is_read(service, model.name) and any(
        f.f_code.co_filename.startswith(KIT_DIR) for f in _frames(inspect.currentframe())
    ):
        kit_writes.append(f"{service}:{model.name}")


def _frames(frame: Any) -> Iterator[Any]:
    while frame is not None:
        yield frame
        frame = frame.f_back


@pytest.fixture(autouse=True)
def kit_calls_only_read() -> Iterator[None]:
    del kit_writes[:]
    yield
    assert not kit_writes, f"the kit called operations the read-only guard refuses: {kit_writes}"


_serial = itertools.count(1)


def unique(prefix: str) -> str:
    """A name no other test in the run uses."""
    return f"{prefix}-{next(_serial)}"


def described(kind: Kind, session: Any, resource_id: str) -> Any:
    """What the Kind's fetch describes, asserting the resource exists."""
    resource = fetch_or_none(lambda: kind.fetch(session, resource_id))
    assert resource is not None, f"{kind.describe(resource_id)} should exist"
    return resource


def passes(requirement: Requirement, resource: Any) -> bool:
    return requirement.evaluate(resource).ok


def miss(requirement: Requirement, kind: Kind, resource_id: str, resource: Any) -> str:
    """The learner-facing sentence for a requirement that must fail on the resource."""
    outcome = requirement.evaluate(resource)
    assert outcome.ok is False, f"{requirement.check} should have failed on {resource_id} (actual {outcome.actual!r})"
    return outcome.issue(kind.describe(resource_id))
