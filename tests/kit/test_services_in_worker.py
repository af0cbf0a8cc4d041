"""A step module that uses only the kit (IAM, DynamoDB) runs through the real Runner, in a guarded worker, against
a moto server: no fetcher, no policy code of its own; the least-privilege miss reaches the answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.core.contract import ContextInput, Event, Handle
from harness.core.lab import load_lab
from harness.sandbox.runner import Runner
from tests.kit.conftest import TABLE_AND_ROLE_SPEC

TABLE_STEP = """\
from harness.kit import dynamodb
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        step.find("01_01_table", dynamodb.TABLE, [dynamodb.keys(("id", "S")), dynamodb.billing_mode()])
    return step.result()
"""
ROLE_STEP = """\
from harness.kit import dynamodb, iam
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        table = step.input("01_01_table", dynamodb.TABLE)
        step.find("01_02_role", iam.ROLE, [
            iam.trusts("lambda.amazonaws.com"),
            iam.may_only(["dynamodb:PutItem", "dynamodb:Query"], [table], key="TableArn"),
        ])
    return step.result()
"""
TRUST = {
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]
}


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory, pool) -> Runner:
    root = tmp_path_factory.mktemp("kit-services-lab")
    (root / "specs").mkdir()
    (root / "specs" / "lab.yaml").write_text(TABLE_AND_ROLE_SPEC, encoding="utf-8")
    modules = root / "evaluation" / "boto3"
    modules.mkdir(parents=True)
    (modules / "01_01.py").write_text(TABLE_STEP, encoding="utf-8")
    (modules / "01_02.py").write_text(ROLE_STEP, encoding="utf-8")
    return Runner(load_lab(Path(root)), pool)


def seed(aws, actions: list[str]) -> tuple[str, str]:
    table_arn = aws.client("dynamodb").create_table(
        TableName="orders",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )["TableDescription"]["TableArn"]
    iam = aws.client("iam")
    iam.create_role(RoleName="orders-api", AssumeRolePolicyDocument=json.dumps(TRUST))
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": table_arn}]}
    iam.put_role_policy(RoleName="orders-api", PolicyName="app", PolicyDocument=json.dumps(policy))
    return "orders", "orders-api"


def role_context(table: str, role: str) -> ContextInput:
    return ContextInput(
        resolved=[Handle(name="01_01_table", type="AWS::DynamoDB::Table", id=table)],
        events=[Event(type="AWS::IAM::Role", id=role)],
    )


def test_the_table_step_passes(runner, aws, sandbox) -> None:
    table, _ = seed(aws, ["dynamodb:PutItem", "dynamodb:Query"])
    answer = runner.evaluate("01.01", ContextInput(events=[Event(type="AWS::DynamoDB::Table", id=table)]), sandbox)
    assert answer.status == "pass", answer


def test_a_least_privilege_role_passes_in_the_worker(runner, aws, sandbox) -> None:
    answer = runner.evaluate("01.02", role_context(*seed(aws, ["dynamodb:PutItem", "dynamodb:Query"])), sandbox)
    assert answer.status == "pass", answer
    assert answer.progress is not None and answer.progress.passed == answer.progress.total
    assert [(c.check, c.ok) for c in answer.checks if c.handle == "01_02_role"] == [
        ("trusted principals", True),
        ("permissions", True),
    ]


def test_an_extra_action_fails_in_the_worker_naming_it(runner, aws, sandbox) -> None:
    answer = runner.evaluate(
        "01.02", role_context(*seed(aws, ["dynamodb:PutItem", "dynamodb:Query", "dynamodb:GetItem"])), sandbox
    )
    assert answer.status == "fail", answer
    assert answer.failure_context is not None
    assert answer.failure_context.issue == (
        'IAM role orders-api: it may also dynamodb:GetItem (inline policy "app" allows it).'
    )
