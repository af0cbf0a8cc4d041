"""`step.find` returns the output's `Output` however many candidates there are: passing it to a requirement works
the same as `step.output(name)`, even where an earlier output of another type has the same id (a role and a
function both named `orders-worker`, as a learner names them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.core.lab import StepSpec, load_lab
from harness.kit import awslambda, iam
from harness.kit.step import Step
from tests.kit.conftest import held_to_contract, make_context, unique
from tests.kit.test_awslambda import TRUST, code

SPEC = """\
project: find-returns
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs:
          - {name: 01_01_role, type: AWS::IAM::Role}
      - id: "02"
        inputs: [01_01_role]
        outputs:
          - {name: 01_02_function, type: AWS::Lambda::Function}
          - {name: 01_02_mapping, type: AWS::Lambda::EventSourceMapping}
"""


@pytest.fixture(scope="module")
def function_step(tmp_path_factory: pytest.TempPathFactory) -> StepSpec:
    root: Path = tmp_path_factory.mktemp("find-returns")
    (root / "specs").mkdir()
    (root / "specs" / "lab.yaml").write_text(SPEC, encoding="utf-8")
    return load_lab(root).steps["01.02"]


def build(session: Any, name: str, functions: list[str]) -> tuple[str, list[tuple[str, str]]]:
    """A role `name`, `functions` running as it, a queue mapped to the last one: (role name, the step's events)."""
    role = session.client("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]
    client = session.client("lambda")
    for function in functions:
        client.create_function(
            FunctionName=function,
            Runtime="python3.12",
            Handler="app.handler",
            Role=role["Arn"],
            Code={"ZipFile": code()},
        )
    sqs = session.client("sqs")
    url = sqs.create_queue(QueueName=unique("q"))["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    mapping = client.create_event_source_mapping(EventSourceArn=queue_arn, FunctionName=functions[-1])["UUID"]
    events = [("AWS::Lambda::Function", f) for f in functions] + [("AWS::Lambda::EventSourceMapping", mapping)]
    return name, events


@pytest.mark.parametrize("others", [0, 1, 2], ids=["one-candidate", "two-candidates", "three-candidates"])
def test_find_returns_the_output_whatever_the_candidates(aws_session, function_step: StepSpec, others: int) -> None:
    name = unique("orders-worker")
    functions = [unique("old-test") for _ in range(others)] + [name]  # the function shares the role's name
    role_name, events = build(aws_session, name, functions)
    step = Step(aws_session, make_context(function_step, resolved=[("01_01_role", role_name)], events=events))
    with step:
        role = step.input("01_01_role", iam.ROLE)
        function = step.find(
            "01_02_function", awslambda.FUNCTION, [awslambda.execution_role(role), awslambda.runtime("python3.12")]
        )
        assert function is step.output("01_02_function")
        step.find("01_02_mapping", awslambda.EVENT_SOURCE_MAPPING, [awslambda.for_function(function)])
    result = step.result()
    assert result["success"], result.get("failure_context")
    assert held_to_contract(result, function_step).status == "pass"


def test_an_output_with_no_candidate_is_still_returned_and_reads_as_false(aws_session, function_step) -> None:
    role = aws_session.client("iam").create_role(RoleName=unique("lonely"), AssumeRolePolicyDocument=json.dumps(TRUST))
    step = Step(aws_session, make_context(function_step, resolved=[("01_01_role", role["Role"]["RoleName"])]))
    with step:
        function = step.find("01_02_function", awslambda.FUNCTION, [])
        assert function is step.output("01_02_function")
        assert not function and dict(function) == {}
        step.find("01_02_mapping", awslambda.EVENT_SOURCE_MAPPING, [awslambda.for_function(function)])
    result = step.result()
    assert not result["success"]
    assert result["failure_context"]["issue"] == "No Lambda function was created in this step."


def test_a_module_written_for_find_returning_none_keeps_its_verdict(aws_session, function_step) -> None:
    """`if function is not None: function["FunctionArn"]` (as modules were written when `find` gave None for no
    candidate) reads an output with no resource: the step fails for that output, it does not answer `error`."""
    role = aws_session.client("iam").create_role(RoleName=unique("lonely"), AssumeRolePolicyDocument=json.dumps(TRUST))
    step = Step(aws_session, make_context(function_step, resolved=[("01_01_role", role["Role"]["RoleName"])]))
    with step:
        function = step.find("01_02_function", awslambda.FUNCTION, [])
        if function is not None:
            step.check("01_02_function", "its ARN", bool(function["FunctionArn"]))
        raise AssertionError("reading an output with no resource ends the step")
    result = step.result()
    assert not result["success"]
    assert result["failure_context"]["issue"] == "No Lambda function was created in this step."
    with pytest.raises(KeyError):  # and outside `with step:`, still the KeyError it always was
        function["FunctionArn"]
