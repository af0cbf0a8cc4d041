"""Asks for secrets, the in-process guard removed first: a parameter history decrypted, API keys with their
values, an activity's next task (which consumes it), a user pool client's secrets."""

import json

from botocore.config import Config

from ._lib import result


async def run(session, context, logger):
    session.events.unregister("before-call", session.guard)

    def fresh(service):  # not the session's cached client, built with the guard before it was removed
        return session.client(service, config=Config(retries={"max_attempts": 1}))

    got = {}
    calls = {
        "ssm": lambda: fresh("ssm").get_parameter_history(Name="db-password", WithDecryption=True),
        "apigateway": lambda: fresh("apigateway").get_api_keys(includeValues=True),
        "stepfunctions": lambda: fresh("stepfunctions").get_activity_task(
            activityArn="arn:aws:states:us-east-1:123456789012:activity:a"),
        "cognito": lambda: fresh("cognito-idp").list_user_pool_client_secrets(UserPoolId="us-east-1_x", ClientId="c"),
    }
    for name, call in calls.items():
        try:
            got[name] = call()
        except Exception as exc:
            got[name] = f"{type(exc).__name__}: {exc}"
    return result("asks_02", json.dumps(got, default=repr))
