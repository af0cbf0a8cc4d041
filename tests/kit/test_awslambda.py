"""Lambda kinds and requirements on moto: the function's configuration, its resource policy, event source mappings."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest

from harness.kit import awslambda
from harness.kit.aws import fetch_or_none
from tests.kit.conftest import described, miss, passes, unique

TRUST = {
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]
}


def code() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", "def handler(event, context):\n    return {}\n")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def role_arn(aws_session) -> str:
    return aws_session.client("iam").create_role(
        RoleName=unique("fn-role"), AssumeRolePolicyDocument=json.dumps(TRUST)
    )["Role"]["Arn"]


def make_function(aws_session: Any, role_arn: str, **settings: Any) -> str:
    name = unique("fn")
    params = {"Runtime": "python3.12", "Handler": "app.handler", "MemorySize": 256, "Timeout": 10, **settings}
    aws_session.client("lambda").create_function(FunctionName=name, Role=role_arn, Code={"ZipFile": code()}, **params)
    return name


def test_a_missing_function_is_not_found(aws_session) -> None:
    assert fetch_or_none(lambda: awslambda.FUNCTION.fetch(aws_session, "no-such-function")) is None


def test_the_function_configuration_is_read(aws_session, role_arn) -> None:
    name = make_function(aws_session, role_arn, Architectures=["arm64"], Environment={"Variables": {"TABLE": "orders"}})
    function = described(awslambda.FUNCTION, aws_session, name)
    for requirement in (
        awslambda.runtime("python3.12"),
        awslambda.handler("app.handler"),
        awslambda.memory(256),
        awslambda.timeout(10),
        awslambda.architecture("arm64"),
        awslambda.execution_role(role_arn),
        awslambda.execution_role(role_arn.rsplit("/", 1)[-1]),
        awslambda.environment(TABLE="orders"),
    ):
        assert passes(requirement, function), requirement.check


@pytest.mark.parametrize(
    ("requirement", "sentence"),
    [
        (awslambda.runtime("python3.13"), "runtime should be python3.13, but is python3.12."),
        (awslambda.memory(512), "memory (MB) should be 512, but is 256."),
        (awslambda.timeout(30), "timeout (s) should be 30, but is 10."),
        (awslambda.architecture("arm64"), "architecture should be arm64, but is x86_64."),
        (awslambda.handler("main.handler"), "handler should be main.handler, but is app.handler."),
    ],
    ids=["runtime", "memory", "timeout", "architecture", "handler"],
)
def test_each_setting_names_expected_and_actual(aws_session, role_arn, requirement, sentence) -> None:
    name = make_function(aws_session, role_arn)
    assert miss(requirement, awslambda.FUNCTION, name, described(awslambda.FUNCTION, aws_session, name)) == (
        f"Lambda function {name}: {sentence}"
    )


def test_a_missing_environment_variable_is_named(aws_session, role_arn) -> None:
    name = make_function(aws_session, role_arn, Environment={"Variables": {"TABLE": "users"}})
    function = described(awslambda.FUNCTION, aws_session, name)
    assert miss(awslambda.environment(TABLE="orders", STAGE="prod"), awslambda.FUNCTION, name, function) == (
        f"Lambda function {name}: its environment has TABLE=users, no STAGE; expected TABLE=orders, STAGE=prod."
    )


def test_the_resource_policy_says_who_may_invoke(aws_session, role_arn) -> None:
    name = make_function(aws_session, role_arn)
    api = "arn:aws:execute-api:us-east-1:123456789012:abc123"
    aws_session.client("lambda").add_permission(
        FunctionName=name,
        StatementId="api",
        Action="lambda:InvokeFunction",
        Principal="apigateway.amazonaws.com",
        SourceArn=f"{api}/*",
    )
    function = described(awslambda.FUNCTION, aws_session, name)
    assert passes(awslambda.invokable_by("apigateway.amazonaws.com"), function)
    assert passes(awslambda.invokable_by("apigateway.amazonaws.com", f"{api}/$default/POST/orders"), function)
    assert miss(
        awslambda.invokable_by("apigateway.amazonaws.com", "arn:aws:execute-api:us-east-1:123456789012:other/x"),
        awslambda.FUNCTION,
        name,
        function,
    ) == (
        f"Lambda function {name}: its policy does not let apigateway.amazonaws.com lambda:InvokeFunction from "
        'arn:aws:execute-api:us-east-1:123456789012:other/x: statement "api" allows lambda:InvokeFunction but has a '
        "Condition (ArnLike AWS:SourceArn) the request does not meet."
    )


def test_no_resource_policy_lets_no_one_invoke(aws_session, role_arn) -> None:
    name = make_function(aws_session, role_arn)
    function = described(awslambda.FUNCTION, aws_session, name)
    assert miss(awslambda.invokable_by("sns.amazonaws.com"), awslambda.FUNCTION, name, function) == (
        f"Lambda function {name}: it has no resource policy, so sns.amazonaws.com may not lambda:InvokeFunction."
    )


def test_an_event_source_mapping_reads_the_queue(aws_session, role_arn) -> None:
    name = make_function(aws_session, role_arn)
    queue = aws_session.client("sqs").create_queue(QueueName=unique("q"))["QueueUrl"]
    queue_arn = aws_session.client("sqs").get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    uuid = aws_session.client("lambda").create_event_source_mapping(
        EventSourceArn=queue_arn, FunctionName=name, BatchSize=5
    )["UUID"]
    mapping = described(awslambda.EVENT_SOURCE_MAPPING, aws_session, uuid)
    for requirement in (awslambda.source(queue_arn), awslambda.for_function(name), awslambda.mapping_enabled()):
        assert passes(requirement, mapping), requirement.check
    assert miss(awslambda.batch_size(10), awslambda.EVENT_SOURCE_MAPPING, uuid, mapping) == (
        f"Event source mapping {uuid}: batch size should be 10, but is 5."
    )
