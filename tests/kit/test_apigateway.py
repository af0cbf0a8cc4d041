"""API Gateway kinds on moto: HTTP APIs (routes to Lambda, stages) and REST APIs (methods, stages, endpoint type)."""

from __future__ import annotations

from typing import Any

from harness.kit import apigateway
from harness.kit.aws import fetch_or_none
from tests.kit.conftest import described, miss, passes, unique

FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function:{}"


def http_api(aws_session: Any, routes: dict[str, str], *, auto_deploy: bool = True) -> str:
    client = aws_session.client("apigatewayv2")
    api_id = client.create_api(Name=unique("api"), ProtocolType="HTTP")["ApiId"]
    for route_key, function in routes.items():
        integration = client.create_integration(
            ApiId=api_id,
            IntegrationType="AWS_PROXY",
            IntegrationUri=FUNCTION_ARN.format(function),
            PayloadFormatVersion="2.0",
        )
        client.create_route(ApiId=api_id, RouteKey=route_key, Target=f"integrations/{integration['IntegrationId']}")
    client.create_stage(ApiId=api_id, StageName="$default", AutoDeploy=auto_deploy)
    return api_id


def test_a_missing_api_is_not_found(aws_session) -> None:
    assert fetch_or_none(lambda: apigateway.HTTP_API.fetch(aws_session, "nosuch")) is None
    assert fetch_or_none(lambda: apigateway.REST_API.fetch(aws_session, "nosuch")) is None


def test_routes_reach_the_function(aws_session) -> None:
    api_id = http_api(aws_session, {"POST /orders": "orders", "GET /orders/{id}": "orders"})
    api = described(apigateway.HTTP_API, aws_session, api_id)
    assert passes(apigateway.protocol("HTTP"), api)
    assert passes(apigateway.route_to_function("POST /orders", "orders"), api)
    assert passes(apigateway.routes_exactly("GET /orders/{id}", "POST /orders"), api)
    assert passes(apigateway.stage("$default", auto_deploy=True), api)


def test_a_route_to_another_function_is_named(aws_session) -> None:
    api_id = http_api(aws_session, {"POST /orders": "payments"})
    api = described(apigateway.HTTP_API, aws_session, api_id)
    assert miss(apigateway.route_to_function("POST /orders", "orders"), apigateway.HTTP_API, api_id, api) == (
        f"HTTP API {api_id}: its route POST /orders goes to lambda payments, not to Lambda function orders."
    )
    assert miss(apigateway.route_to_function("GET /orders", "orders"), apigateway.HTTP_API, api_id, api) == (
        f"HTTP API {api_id}: it has no route GET /orders."
    )


def test_extra_routes_and_stages_are_named(aws_session) -> None:
    api_id = http_api(aws_session, {"POST /orders": "orders", "ANY /{proxy+}": "orders"}, auto_deploy=False)
    api = described(apigateway.HTTP_API, aws_session, api_id)
    assert miss(apigateway.routes_exactly("POST /orders"), apigateway.HTTP_API, api_id, api) == (
        f"HTTP API {api_id}: routes should be POST /orders, but is ANY /{{proxy+}}, POST /orders."
    )
    assert miss(apigateway.stage("$default", auto_deploy=True), apigateway.HTTP_API, api_id, api) == (
        f"HTTP API {api_id}: stage $default should be auto-deploy, but is manual deploy."
    )
    assert miss(apigateway.stage("prod"), apigateway.HTTP_API, api_id, api) == (
        f"HTTP API {api_id}: stage prod should be present, but is missing."
    )


def rest_api(aws_session: Any, function: str) -> str:
    client = aws_session.client("apigateway")
    api_id = client.create_rest_api(name=unique("rest"), endpointConfiguration={"types": ["REGIONAL"]})["id"]
    root = next(r["id"] for r in client.get_resources(restApiId=api_id)["items"] if r["path"] == "/")
    orders = client.create_resource(restApiId=api_id, parentId=root, pathPart="orders")["id"]
    client.put_method(restApiId=api_id, resourceId=orders, httpMethod="POST", authorizationType="NONE")
    uri = f"arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/{FUNCTION_ARN.format(function)}/invocations"
    client.put_integration(
        restApiId=api_id, resourceId=orders, httpMethod="POST", type="AWS_PROXY", integrationHttpMethod="POST", uri=uri
    )
    deployment = client.create_deployment(restApiId=api_id)["id"]
    client.create_stage(restApiId=api_id, stageName="prod", deploymentId=deployment)
    return api_id


def test_a_rest_method_reaches_the_function(aws_session) -> None:
    api_id = rest_api(aws_session, "orders")
    api = described(apigateway.REST_API, aws_session, api_id)
    assert passes(apigateway.method_to_function("/orders", "post", "orders"), api)
    assert passes(apigateway.stage("prod"), api)
    assert passes(apigateway.endpoint_type("REGIONAL"), api)
    assert miss(apigateway.method_to_function("/orders", "GET", "orders"), apigateway.REST_API, api_id, api) == (
        f"REST API {api_id}: it has no GET method on /orders."
    )
    assert miss(apigateway.method_to_function("/orders", "POST", "other"), apigateway.REST_API, api_id, api) == (
        f"REST API {api_id}: its POST /orders goes to lambda orders, not to Lambda function other."
    )
