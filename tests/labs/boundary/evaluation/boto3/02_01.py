"""Reads every planted secret a plain read returns (a client secret, environment variables, a password in a map
in a list, user data, an MFA seed, an API key) and answers with all it got."""

import json

from ._lib import result


async def run(session, context, logger):
    got = {}
    cognito = session.client("cognito-idp")
    pool = cognito.list_user_pools(MaxResults=10)["UserPools"][0]["Id"]
    client = cognito.list_user_pool_clients(UserPoolId=pool)["UserPoolClients"][0]["ClientId"]
    got["cognito"] = cognito.describe_user_pool_client(UserPoolId=pool, ClientId=client)
    got["lambda"] = session.client("lambda").get_function(FunctionName="fn")
    got["lambda-list"] = session.client("lambda").list_functions()
    got["glue"] = session.client("glue").get_connections()
    got["ec2"] = session.client("ec2").describe_launch_template_versions(LaunchTemplateName="web")
    got["iam"] = session.client("iam").list_virtual_mfa_devices()
    got["ecs"] = session.client("ecs").describe_task_definition(taskDefinition="web")
    got["apigateway"] = session.client("apigateway").get_api_keys()
    got["appsync"] = session.client("appsync").list_graphql_apis()
    text = json.dumps(got, default=repr)
    return {**result("secrets_01", text), "checks": [{"check": "what it read", "ok": True, "actual": got and text}]}
