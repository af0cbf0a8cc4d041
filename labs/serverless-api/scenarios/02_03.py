"""Step 02.03: the mistakes learners make with the HTTP API (solution/boto3/02_03.py solves it)."""

from harness.authoring.scenarios import mistake

ROUTES = ("GET /items/{id}", "PUT /items/{id}")


def _api(aws, handles, *, routes=ROUTES, function=None, auto_deploy=True, permitted=True):
    lam = aws.client("lambda")
    target = lam.get_function(FunctionName=function or handles["02_01_function"])["Configuration"]["FunctionArn"]
    api = aws.client("apigatewayv2")
    api_id = api.create_api(Name="items", ProtocolType="HTTP")["ApiId"]
    integration = api.create_integration(
        ApiId=api_id, IntegrationType="AWS_PROXY", IntegrationUri=target, PayloadFormatVersion="2.0"
    )["IntegrationId"]
    for route in routes:
        api.create_route(ApiId=api_id, RouteKey=route, Target=f"integrations/{integration}")
    api.create_stage(ApiId=api_id, StageName="$default", AutoDeploy=auto_deploy)
    if permitted:
        _, partition, _, region, account = target.split(":")[:5]
        source = f"arn:{partition}:execute-api:{region}:{account}:{api_id}/*"
        lam.add_permission(
            FunctionName=handles["02_01_function"], StatementId="api", Action="lambda:InvokeFunction",
            Principal="apigateway.amazonaws.com", SourceArn=source,
        )  # fmt: skip


@mistake(issue=r"(?i)lambda:InvokeFunction")
def not_allowed_to_invoke(aws, handles):
    _api(aws, handles, permitted=False)


@mistake(issue=r"(?i)routes")
def catch_all_route_too(aws, handles):
    _api(aws, handles, routes=(*ROUTES, "ANY /{proxy+}"))


@mistake(issue=r"(?i)no route PUT")
def read_route_only(aws, handles):
    _api(aws, handles, routes=ROUTES[:1])


@mistake(issue=r"(?i)stage")
def deployed_by_hand(aws, handles):
    _api(aws, handles, auto_deploy=False)
