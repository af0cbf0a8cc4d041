"""API Gateway validators: HTTP APIs (v2: routes, their Lambda integrations, stages; id = ApiId) and REST APIs
(v1: resources and methods, stages, endpoint type; id = RestApiId)."""

from __future__ import annotations

from typing import Any

from harness.kit import refs
from harness.kit.bounds import Bound
from harness.kit.kinds import Kind, LazyResource, Resource, register
from harness.kit.later import later
from harness.kit.require import Requirement, attribute, require


def _items(client: Any, operation: str, **params: Any) -> list[dict[str, Any]]:
    """Every item of a v2 `get_*` list (paged by NextToken; botocore has no paginator for most of them)."""
    items, token = [], None
    while True:
        page = getattr(client, operation)(**params, **({"NextToken": token} if token else {}))
        items += page.get("Items", [])
        token = page.get("NextToken")
        if not token:
            return items


def _fetch_http_api(session: Any, api_id: str) -> Resource:
    client = session.client("apigatewayv2")
    api = client.get_api(ApiId=api_id)
    return LazyResource(
        api,
        {
            "Routes": lambda: _items(client, "get_routes", ApiId=api_id),
            "Integrations": lambda: _items(client, "get_integrations", ApiId=api_id),
            "Stages": lambda: _items(client, "get_stages", ApiId=api_id),
        },
    )


def _fetch_rest_api(session: Any, api_id: str) -> Resource:
    client = session.client("apigateway")
    api = client.get_rest_api(restApiId=api_id)

    def resources() -> list[dict[str, Any]]:
        pages = client.get_paginator("get_resources").paginate(restApiId=api_id, embed=["methods"])
        return [r for page in pages for r in page["items"]]

    return LazyResource(
        api, {"Resources": resources, "Stages": lambda: client.get_stages(restApiId=api_id).get("item", [])}
    )


HTTP_API = register(Kind("AWS::ApiGatewayV2::Api", "HTTP API", _fetch_http_api))
"""`get_api`'s API (`ApiId`, `Name`, `ProtocolType`, `ApiEndpoint`) plus `Routes` (`RouteKey`, `Target`),
`Integrations` (`IntegrationId`, `IntegrationType`, `IntegrationUri`) and `Stages` (`StageName`, `AutoDeploy`), each
read when first used."""
REST_API = register(Kind("AWS::ApiGateway::RestApi", "REST API", _fetch_rest_api))
"""`get_rest_api`'s API (`id`, `name`, `endpointConfiguration`: `{"types": ["REGIONAL"]}`) plus `Resources`
(`[{"id", "path", "resourceMethods": {"POST": {"methodIntegration": {"type", "uri"}}}}]`) and `Stages`
(`[{"stageName", "deploymentId"}]`), each read when first used."""


def protocol(value: str = "HTTP") -> Requirement:
    """An HTTP API (`HTTP`) rather than a WebSocket one."""
    return attribute("protocol", "ProtocolType", value)


def _function_arn(uri: str | None) -> str | None:
    """The function an integration invokes: a function ARN as given, or the one inside an
    `arn:aws:apigateway:REGION:lambda:path/2015-03-31/functions/ARN/invocations` URI."""
    if not uri:
        return None
    return uri.split("/functions/", 1)[1].removesuffix("/invocations") if "/functions/" in uri else uri


def _route_target(api: Resource, route_key: str) -> str | None:
    """`lambda ARN` or the integration's type and uri, for the route `route_key`; None when there is no such
    route."""
    route = next((r for r in api["Routes"] if r.get("RouteKey") == route_key), None)
    if route is None:
        return None
    integration_id = (route.get("Target") or "").removeprefix("integrations/")
    integration = next((i for i in api["Integrations"] if i.get("IntegrationId") == integration_id), None)
    if integration is None:
        return "no integration"
    if integration.get("IntegrationType") == "AWS_PROXY":
        return f"lambda {_function_arn(integration.get('IntegrationUri'))}"
    return f"{integration.get('IntegrationType')} {integration.get('IntegrationUri')}"


def _shown(target: str | None) -> str | None:
    """A target as a sentence names it: `lambda NAME[:QUALIFIER]`, not the whole ARN."""
    if not target or not target.startswith("lambda "):
        return target
    named = refs.FUNCTION.read(target.removeprefix("lambda "))
    return f"lambda {named.name}{f':{named.version}' if named.version else ''}" if named else target


def _invokes(target: str | None, function: Any) -> bool:
    return (
        target is not None
        and target.startswith("lambda ")
        and refs.current().same(refs.FUNCTION, target.removeprefix("lambda "), function)
    )


@later
def route_to_function(route_key: str, function: Resource | str | None) -> Requirement:
    """The route (e.g. `POST /orders`, `GET /orders/{id}`, `$default`) invokes the Lambda function (a described
    function, its name or ARN) by proxy."""
    name = refs.shown(refs.FUNCTION, function)
    return require(
        f"route {route_key}",
        f"lambda {name}",
        lambda api: _route_target(api, route_key),
        compare=lambda actual, _: _invokes(actual, function),
        explain=lambda actual: (
            f"it has no route {route_key}."
            if actual is None
            else f"its route {route_key} goes to {_shown(actual)}, not to Lambda function {name}."
        ),
        hint=f"Add the route {route_key} with a Lambda (proxy) integration to {name}.",
    )


def routes_exactly(*route_keys: str) -> Requirement:
    """The API has exactly these routes (so nothing else is exposed)."""
    return require("routes", sorted(route_keys), lambda api: sorted(r.get("RouteKey") for r in api["Routes"]))


def stage(name: str = "$default", *, auto_deploy: bool | None = None) -> Requirement:
    """A stage `name` exists (deploying automatically, if `auto_deploy` is given); HTTP and REST APIs alike."""

    def found(api: Resource) -> str:
        stage_ = next((s for s in api["Stages"] if s.get("StageName", s.get("stageName")) == name), None)
        if stage_ is None:
            return "missing"
        if auto_deploy is None:
            return "present"
        return "auto-deploy" if stage_.get("AutoDeploy") else "manual deploy"

    expected = "present" if auto_deploy is None else ("auto-deploy" if auto_deploy else "manual deploy")
    return require(f"stage {name}", expected, found)


def _methods(api: Resource, path: str) -> dict[str, dict[str, Any]]:
    resource = next((r for r in api["Resources"] if r.get("path") == path), None)
    return (resource or {}).get("resourceMethods") or {}


@later
def method_to_function(path: str, http_method: str, function: Resource | str | None) -> Requirement:
    """REST API: `http_method` on the resource `path` (e.g. `/orders`) proxies to the Lambda function (a
    described function, its name or ARN)."""
    name = refs.shown(refs.FUNCTION, function)

    def target(api: Resource) -> str | None:
        method = _methods(api, path).get(http_method.upper())
        if method is None:
            return None
        integration = method.get("methodIntegration") or {}
        if integration.get("type") not in ("AWS_PROXY", "AWS"):
            return f"{integration.get('type', 'no integration')}"
        return f"lambda {_function_arn(integration.get('uri'))}"

    return require(
        f"method {http_method.upper()} {path}",
        f"lambda {name}",
        target,
        compare=lambda actual, _: _invokes(actual, function),
        explain=lambda actual: (
            f"it has no {http_method.upper()} method on {path}."
            if actual is None
            else f"its {http_method.upper()} {path} goes to {_shown(actual)}, not to Lambda function {name}."
        ),
    )


def endpoint_type(value: str = "REGIONAL") -> Requirement:
    """REST API endpoint type: REGIONAL, EDGE or PRIVATE."""
    return require(
        "endpoint type", value, lambda api: ", ".join((api.get("endpointConfiguration") or {}).get("types", []))
    )


def _fetch_stage(session: Any, stage_id: str) -> Resource:
    api_id, _, name = stage_id.partition("|")
    stage = session.client("apigateway").get_stage(restApiId=api_id, stageName=name)
    return {**{k: v for k, v in stage.items() if k != "ResponseMetadata"}, "restApiId": api_id}


def _fetch_method(session: Any, method_id: str) -> Resource:
    api_id, resource_id, http_method = ([*method_id.split("|"), "", ""])[:3]
    method = session.client("apigateway").get_method(
        restApiId=api_id, resourceId=resource_id, httpMethod=http_method.upper()
    )
    return {
        **{k: v for k, v in method.items() if k != "ResponseMetadata"},
        "restApiId": api_id,
        "resourceId": resource_id,
    }


def _fetch_authorizer(session: Any, authorizer_id: str) -> Resource:
    api_id, _, own_id = authorizer_id.partition("|")
    found = session.client("apigateway").get_authorizer(restApiId=api_id, authorizerId=own_id)
    return {**{k: v for k, v in found.items() if k != "ResponseMetadata"}, "restApiId": api_id}


def _last(compound: str) -> str:
    return compound.rsplit("|", 1)[-1]


STAGE = register(Kind("AWS::ApiGateway::Stage", "REST API stage", _fetch_stage, naming="{noun} {name}", short=_last))
"""`get_stage`'s stage plus its API's id (id = `API_ID|STAGE`): `{"restApiId", "stageName", "deploymentId",
"tracingEnabled", "methodSettings": {"*/*": {"throttlingRateLimit", "throttlingBurstLimit", "loggingLevel",
"metricsEnabled"}}}`."""

METHOD = register(
    Kind(
        "AWS::ApiGateway::Method",
        "REST API method",
        _fetch_method,
        naming="{noun} {name}",
        short=lambda method_id: " ".join(method_id.split("|")[2:]),
    )
)
"""`get_method`'s method plus its ids (id = `API_ID|RESOURCE_ID|HTTP_METHOD`): `{"restApiId", "resourceId",
"httpMethod", "authorizationType": "NONE" | "AWS_IAM" | "CUSTOM" | "COGNITO_USER_POOLS", "authorizerId",
"apiKeyRequired", "authorizationScopes", "methodIntegration"}`."""

AUTHORIZER = register(
    Kind("AWS::ApiGateway::Authorizer", "REST API authorizer", _fetch_authorizer, naming="{noun} {name}", short=_last)
)
"""`get_authorizer`'s authorizer plus its API's id (id = `API_ID|AUTHORIZER_ID`): `{"restApiId", "id", "name",
"type": "TOKEN" | "REQUEST" | "COGNITO_USER_POOLS", "providerARNs": [user pool ARNs], "authorizerUri",
"identitySource"}`."""


def _stage_setting(stage: Resource, key: str) -> Any:
    """A stage-wide method setting (`*/*`), where AWS keeps the stage's default throttling and logging."""
    return ((stage.get("methodSettings") or {}).get("*/*") or {}).get(key)


def _shown_setting(value: Any) -> str:
    return "unset" if value is None else str(value)


def throttled(rate: float | Bound | None = None, burst: int | Bound | None = None) -> Requirement:
    """The stage throttles every method: at `rate` requests a second (steady) and `burst` at once, each if given
    (a number, or a `kit.bounds` bound: `rate=at_most(100)`); a stage without throttling settings misses."""
    parts = [*([f"rate {rate}/s"] if rate is not None else []), *([f"burst {burst}"] if burst is not None else [])]

    def limits(stage: Resource) -> tuple[Any, Any]:
        return _stage_setting(stage, "throttlingRateLimit"), _stage_setting(stage, "throttlingBurstLimit")

    def holds(found: tuple[Any, Any], _: Any) -> bool:
        found_rate, found_burst = found
        return (
            (found_rate is not None or found_burst is not None)
            and (rate is None or (found_rate is not None and rate == found_rate))
            and (burst is None or (found_burst is not None and burst == found_burst))
        )

    return require(
        "throttling",
        ", ".join(parts) or "set",
        limits,
        compare=holds,
        explain=lambda found: (
            f"throttling should be {', '.join(parts) or 'set'}, "
            f"but is rate {_shown_setting(found[0])}/s, burst {_shown_setting(found[1])}."
        ),
        hint="Set the stage's default method throttling.",
    )


def tracing(enabled: bool = True) -> Requirement:
    """X-Ray tracing is on for the stage."""
    return require("X-Ray tracing", enabled, lambda s: bool(s.get("tracingEnabled")))


def authorization(value: str) -> Requirement:
    """The method's authorization type: `NONE`, `AWS_IAM`, `CUSTOM` (a Lambda authorizer) or `COGNITO_USER_POOLS`."""
    return require("authorization", value.upper(), lambda m: m.get("authorizationType", "NONE"))


@later
def authorized_by(authorizer: Resource | str | None) -> Requirement:
    """The method is authorized by the authorizer (a described authorizer, or its id)."""
    wanted = authorizer.get("id") if isinstance(authorizer, dict) else authorizer
    return require("authorizer", wanted, lambda m: m.get("authorizerId"))


def api_key_required(required: bool = True) -> Requirement:
    """Callers of the method must send an API key."""
    return require("API key required", required, lambda m: bool(m.get("apiKeyRequired")))


def authorizer_type(value: str = "COGNITO_USER_POOLS") -> Requirement:
    """The authorizer's type: `COGNITO_USER_POOLS`, `TOKEN` or `REQUEST` (a Lambda authorizer)."""
    return require("type", value.upper(), lambda a: a.get("type"))


@later
def user_pools(*pools: Resource | str | None) -> Requirement:
    """The authorizer trusts exactly these Cognito user pools (described pools, their ids or ARNs)."""
    return refs.refers_exactly("user pools", refs.USER_POOL, pools, lambda a: a.get("providerARNs") or [])
