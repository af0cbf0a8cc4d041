"""Step Functions, Cognito and API Gateway (stages, methods, authorizers) kinds on moto."""

from __future__ import annotations

import json

import pytest

from harness.kit import apigateway, cognito, stepfunctions
from harness.kit.bounds import at_least, at_most
from tests.kit.conftest import described, miss, passes, unique

DEFINITION = json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}})
TRUST = json.dumps({"Statement": [{"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"},
                                   "Action": "sts:AssumeRole"}]})  # fmt: skip


def role(aws_session) -> dict:
    return aws_session.client("iam").create_role(RoleName=unique("sfn"), AssumeRolePolicyDocument=TRUST)["Role"]


def test_a_state_machine_with_its_role_and_logging(aws_session) -> None:
    runner, other = role(aws_session), role(aws_session)
    logs = aws_session.client("logs")
    group = unique("/aws/states/orders")
    logs.create_log_group(logGroupName=group)
    group_arn = f"arn:aws:logs:us-east-1:123456789012:log-group:{group}:*"
    arn = aws_session.client("stepfunctions").create_state_machine(
        name=unique("orders"), definition=DEFINITION, roleArn=runner["Arn"], type="EXPRESS",
        loggingConfiguration={"level": "ERROR", "includeExecutionData": True,
                              "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": group_arn}}]},
    )["stateMachineArn"]  # fmt: skip
    machine = described(stepfunctions.STATE_MACHINE, aws_session, arn)
    for requirement in (
        stepfunctions.machine_type("express"),
        stepfunctions.execution_role(runner["RoleName"]),
        stepfunctions.execution_role(runner["Arn"]),
        stepfunctions.logs_to(group, "ERROR"),
        stepfunctions.logs_to(group_arn.removesuffix(":*"), "FATAL", execution_data=True),
    ):
        assert passes(requirement, machine), requirement.check
    assert not passes(stepfunctions.execution_role(other["RoleName"]), machine)
    assert not passes(stepfunctions.logs_to(group, "ERROR", execution_data=False), machine)
    assert not passes(stepfunctions.logs_to("/aws/states/other", "ERROR"), machine)
    name = arn.rsplit(":", 1)[1]
    assert miss(stepfunctions.logs_to(group, "ALL"), stepfunctions.STATE_MACHINE, arn, machine) == (
        f"State machine {name}: logging should be {group} at ALL, but is {group_arn} at ERROR."
    )
    with pytest.raises(ValueError, match="'DEBUG'"):
        stepfunctions.logs_to(group, "DEBUG")
    assert not passes(stepfunctions.tracing(), machine)


@pytest.fixture
def pool(aws_session) -> dict:
    client = aws_session.client("cognito-idp")
    made = client.create_user_pool(
        PoolName=unique("users"), MfaConfiguration="OPTIONAL", UsernameAttributes=["email"],
        AutoVerifiedAttributes=["email"], Policies={"PasswordPolicy": {"MinimumLength": 12}},
    )["UserPool"]  # fmt: skip
    return described(cognito.USER_POOL, aws_session, made["Id"])


def test_a_user_pool(aws_session, pool: dict) -> None:
    for requirement in (
        cognito.mfa("optional"),
        cognito.signs_in_with("email"),
        cognito.auto_verifies("email"),
        cognito.password_length(12),
        cognito.password_length(at_least(8)),
    ):
        assert passes(requirement, pool), requirement.check
    assert miss(cognito.mfa(), cognito.USER_POOL, pool["Id"], pool) == (
        f"User pool {pool['Id']}: MFA should be ON, but is OPTIONAL."
    )
    assert not passes(cognito.password_length(at_least(14)), pool)
    assert described(cognito.USER_POOL, aws_session, pool["Arn"])["Id"] == pool["Id"]


def test_a_user_pool_client(aws_session, pool: dict) -> None:
    client = aws_session.client("cognito-idp")
    other = client.create_user_pool(PoolName=unique("other"))["UserPool"]
    app = client.create_user_pool_client(
        UserPoolId=pool["Id"], ClientName="web", GenerateSecret=False,
        ExplicitAuthFlows=["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
        AllowedOAuthFlows=["code"], AllowedOAuthFlowsUserPoolClient=True, AllowedOAuthScopes=["openid"],
        CallbackURLs=["https://example.com/callback"],
    )["UserPoolClient"]  # fmt: skip
    client_id = f"{pool['Id']}|{app['ClientId']}"
    found = described(cognito.USER_POOL_CLIENT, aws_session, client_id)
    for requirement in (
        cognito.client_of(pool),
        cognito.client_of(pool["Id"]),
        cognito.client_of(pool["Arn"]),
        cognito.has_secret(False),
        cognito.auth_flows("USER_SRP_AUTH"),
        cognito.auth_flows("ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_USER_SRP_AUTH"),
        cognito.oauth_flows("code"),
    ):
        assert passes(requirement, found), requirement.check
    assert not passes(cognito.client_of(other["Id"]), found)
    assert miss(cognito.auth_flows("ALLOW_USER_PASSWORD_AUTH"), cognito.USER_POOL_CLIENT, client_id, found) == (
        f"User pool client {app['ClientId']}: auth flows should be ALLOW_USER_PASSWORD_AUTH, "
        "but is ALLOW_REFRESH_TOKEN_AUTH, ALLOW_USER_SRP_AUTH."
    )


def test_a_rest_api_stage_method_and_authorizer(aws_session, pool: dict) -> None:
    client = aws_session.client("apigateway")
    other_pool = aws_session.client("cognito-idp").create_user_pool(PoolName=unique("other"))["UserPool"]
    api = client.create_rest_api(name=unique("orders"))["id"]
    root = client.get_resources(restApiId=api)["items"][0]["id"]
    resource = client.create_resource(restApiId=api, parentId=root, pathPart="order")["id"]
    authorizer = client.create_authorizer(
        restApiId=api, name="users", type="COGNITO_USER_POOLS", providerARNs=[pool["Arn"]],
        identitySource="method.request.header.Authorization",
    )["id"]  # fmt: skip
    client.put_method(restApiId=api, resourceId=resource, httpMethod="POST", authorizationType="COGNITO_USER_POOLS",
                      authorizerId=authorizer)  # fmt: skip
    client.put_integration(restApiId=api, resourceId=resource, httpMethod="POST", type="MOCK")
    client.create_deployment(restApiId=api, stageName="prod")
    client.update_stage(restApiId=api, stageName="prod", patchOperations=[
        {"op": "replace", "path": "/*/*/throttling/rateLimit", "value": "50"},
        {"op": "replace", "path": "/*/*/throttling/burstLimit", "value": "100"},
    ])  # fmt: skip

    method = described(apigateway.METHOD, aws_session, f"{api}|{resource}|POST")
    found_authorizer = described(apigateway.AUTHORIZER, aws_session, f"{api}|{authorizer}")
    for requirement in (
        apigateway.authorization("cognito_user_pools"),
        apigateway.authorized_by(authorizer),
        apigateway.authorized_by(found_authorizer),
        apigateway.api_key_required(False),
    ):
        assert passes(requirement, method), requirement.check
    assert miss(apigateway.authorization("AWS_IAM"), apigateway.METHOD, f"{api}|{resource}|POST", method) == (
        "REST API method POST: authorization should be AWS_IAM, but is COGNITO_USER_POOLS."
    )
    for requirement in (
        apigateway.authorizer_type(),
        apigateway.user_pools(pool),
        apigateway.user_pools(pool["Id"]),
        apigateway.user_pools(pool["Arn"]),
    ):
        assert passes(requirement, found_authorizer), requirement.check
    assert not passes(apigateway.user_pools(other_pool["Id"]), found_authorizer)
    assert not passes(apigateway.user_pools(pool["Id"], other_pool["Id"]), found_authorizer)

    stage = described(apigateway.STAGE, aws_session, f"{api}|prod")
    assert passes(apigateway.throttled(rate=50, burst=100), stage)
    assert passes(apigateway.throttled(rate=at_most(100)), stage)
    assert miss(apigateway.throttled(rate=at_most(10)), apigateway.STAGE, f"{api}|prod", stage) == (
        "REST API stage prod: throttling should be rate at most 10/s, but is rate 50.0/s, burst 100."
    )
    client.create_deployment(restApiId=api, stageName="dev")
    bare = described(apigateway.STAGE, aws_session, f"{api}|dev")
    assert not passes(apigateway.throttled(), bare)
