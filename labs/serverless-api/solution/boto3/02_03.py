"""Step 02.03: an HTTP API, GET and PUT /items/{id} to the function, auto-deployed, allowed to invoke it."""

from botocore.exceptions import ClientError


async def run(session, context, logger):
    function = next(h["id"] for h in context["resolved"] if h["name"] == "02_01_function")
    try:
        lam = session.client("lambda")
        target = lam.get_function(FunctionName=function)["Configuration"]["FunctionArn"]
        api = session.client("apigatewayv2")
        api_id = api.create_api(Name="items", ProtocolType="HTTP")["ApiId"]
        integration = api.create_integration(
            ApiId=api_id, IntegrationType="AWS_PROXY", IntegrationUri=target, PayloadFormatVersion="2.0"
        )["IntegrationId"]
        for route in ("GET /items/{id}", "PUT /items/{id}"):
            api.create_route(ApiId=api_id, RouteKey=route, Target=f"integrations/{integration}")
        api.create_stage(ApiId=api_id, StageName="$default", AutoDeploy=True)
        _, partition, _, region, account = target.split(":")[:5]
        lam.add_permission(
            FunctionName=function,
            StatementId="api",
            Action="lambda:InvokeFunction",
            Principal="apigateway.amazonaws.com",
            SourceArn=f"arn:{partition}:execute-api:{region}:{account}:{api_id}/*",
        )
        return {"success": True, "resources": [{"name": "02_03_api", "type": "AWS::ApiGatewayV2::Api", "id": api_id}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
