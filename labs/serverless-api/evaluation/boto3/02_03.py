"""Create an HTTP API with exactly the routes GET /items/{id} and PUT /items/{id}, both integrated with the
function, a $default stage that deploys automatically, and permission for API Gateway to invoke the function."""

from harness.kit import apigateway, awslambda
from harness.kit.step import Step

ROUTES = ("GET /items/{id}", "PUT /items/{id}")


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        function = step.input("02_01_function", awslambda.FUNCTION)
        api = step.find("02_03_api", apigateway.HTTP_API, [
            apigateway.protocol("HTTP"),
            *(apigateway.route_to_function(route, function) for route in ROUTES),
            apigateway.routes_exactly(*ROUTES),
            apigateway.stage("$default", auto_deploy=True),
        ])  # fmt: skip
        step.find("02_01_function", awslambda.FUNCTION, [awslambda.invokable_by_api(api, *ROUTES)])
    return step.result()
