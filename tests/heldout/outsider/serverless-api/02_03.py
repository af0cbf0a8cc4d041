"""Outsider: step 02.03 (the HTTP API)."""

from harness.authoring.scenarios import mistake

from ._lib import all_of, function


def _fn_arn(aws, name):
    return aws.client("lambda").get_function(FunctionName=name)["Configuration"]["FunctionArn"]


def _api(
    aws,
    handles,
    *,
    name="items",
    routes=("GET /items/{id}", "PUT /items/{id}"),
    target=None,
    stage="$default",
    auto=True,
    permit=True,
    source=None,
):
    fn = handles["02_01_function"]
    arn = target or _fn_arn(aws, fn)
    gw = aws.client("apigatewayv2")
    api_id = gw.create_api(Name=name, ProtocolType="HTTP")["ApiId"]
    integ = gw.create_integration(
        ApiId=api_id, IntegrationType="AWS_PROXY", IntegrationUri=arn, PayloadFormatVersion="2.0"
    )["IntegrationId"]
    for r in routes:
        gw.create_route(ApiId=api_id, RouteKey=r, Target=f"integrations/{integ}")
    if stage:
        gw.create_stage(ApiId=api_id, StageName=stage, AutoDeploy=auto)
    if permit:
        _, p, _, region, account = _fn_arn(aws, fn).split(":")[:5]
        aws.client("lambda").add_permission(
            FunctionName=fn,
            StatementId=f"api-{api_id}",
            Action="lambda:InvokeFunction",
            Principal="apigateway.amazonaws.com",
            SourceArn=source or f"arn:{p}:execute-api:{region}:{account}:{api_id}/*",
        )
    return api_id


@mistake(issue=all_of("(route|PUT)", "PUT /items/\\{id\\}"))
def put_route_forgotten(aws, handles):
    """Cause: the API has only GET /items/{id}; the route PUT /items/{id} is missing."""
    _api(aws, handles, routes=("GET /items/{id}",))


@mistake(issue=all_of("items-api", "(permission|invoke|apigateway)"))
def invoke_permission_forgotten(aws, handles):
    """Cause: no resource-policy statement lets API Gateway invoke items-api."""
    _api(aws, handles, permit=False)


@mistake(issue=all_of("(stage|\\$default)", "(auto|deploy)"))
def default_stage_without_auto_deploy(aws, handles):
    """Cause: the $default stage exists but does not deploy automatically."""
    _api(aws, handles, auto=False)


@mistake(issue=all_of("(route|integrat)", "items-api\\b(?!-)"))
def routes_integrated_with_a_scratch_function(aws, handles):
    """Mis-wired: routes integrated with hello-test (a scratch function), not items-api (though items-api allows
    the API)."""
    role = aws.client("lambda").get_function(FunctionName=handles["02_01_function"])["Configuration"]["Role"]
    scratch = function(aws, "hello-test", role, "items")
    _api(aws, handles, target=scratch)


@mistake(issue=all_of("items-api", "(permission|invoke|source|execute-api)"))
def permission_names_the_first_attempt(aws, handles):
    """Decoy + mis-wire: a first API items-v1 (GET only) got the invoke permission; the right API items (created
    after) has the routes and stage but no permission naming it."""
    _api(aws, handles, name="items-v1", routes=("GET /items/{id}",))
    _api(aws, handles, permit=False)


@mistake(expect="pass")
def equivalent_one_integration_per_route_route_scoped_permissions(aws, handles):
    """Equivalent: one integration per route (payload 1.0), and two permissions scoped to each route's ARN as the
    console writes them (.../*/GET/items/{id}, .../*/PUT/items/{id})."""
    fn = handles["02_01_function"]
    arn = _fn_arn(aws, fn)
    gw = aws.client("apigatewayv2")
    api_id = gw.create_api(Name="items-http", ProtocolType="HTTP")["ApiId"]
    _, p, _, region, account = arn.split(":")[:5]
    for i, (method, path) in enumerate((("GET", "/items/{id}"), ("PUT", "/items/{id}"))):
        integ = gw.create_integration(
            ApiId=api_id,
            IntegrationType="AWS_PROXY",
            IntegrationUri=arn,
            IntegrationMethod="POST",
            PayloadFormatVersion="1.0",
        )["IntegrationId"]
        gw.create_route(ApiId=api_id, RouteKey=f"{method} {path}", Target=f"integrations/{integ}")
        aws.client("lambda").add_permission(
            FunctionName=fn,
            StatementId=f"api-{i}",
            Action="lambda:InvokeFunction",
            Principal="apigateway.amazonaws.com",
            SourceArn=f"arn:{p}:execute-api:{region}:{account}:{api_id}/*/{method}{path}",
        )
    gw.create_stage(ApiId=api_id, StageName="$default", AutoDeploy=True)


@mistake(issue=all_of("items-api", "(permission|invoke|source|execute-api)"))
def permission_source_arn_names_another_api(aws, handles):
    """Cause: the only API is right, but the invoke permission's SourceArn names api id abcd123456 (copied from a
    tutorial), so API Gateway cannot invoke items-api from this API."""
    fn = handles["02_01_function"]
    _, p, _, region, account = _fn_arn(aws, fn).split(":")[:5]
    _api(aws, handles, source=f"arn:{p}:execute-api:{region}:{account}:abcd123456/*")
