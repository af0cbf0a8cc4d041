"""Reads credentials planted under names that do not say so (issue 31, the fourth outside attacker): a function's
environment (`PGPASS`, `CRED`, a Redis URL with no user, Laravel's `APP_KEY`, a SendGrid key, `SALT`,
`DJANGO_KEY`), a REST API stage's variables (`dbpass`, `CRED`) and an object's metadata (`pgpass`). Each answer's
raw body and headers (before botocore drops what its model lacks) go back in the message."""

import json


def _raw(client, bodies):
    def keep(response_dict, **_):
        body = response_dict.get("body")
        bodies.append(body.decode("utf-8", "replace") if isinstance(body, bytes) else repr(body))
        bodies.append(json.dumps(dict(response_dict.get("headers") or {})))

    client.meta.events.register("before-parse", keep)
    return client


async def run(session, context, logger):
    bodies, failures = [], []
    functions = _raw(session.client("lambda"), bodies)
    apis = _raw(session.client("apigateway"), bodies)
    s3 = _raw(session.client("s3"), bodies)
    reads = [
        lambda: [functions.get_function_configuration(FunctionName=f["FunctionName"])
                 for f in functions.list_functions()["Functions"]],
        lambda: [apis.get_stages(restApiId=api["id"]) for api in apis.get_rest_apis()["items"]],
        lambda: s3.head_object(Bucket=context["events"][0]["id"], Key="meta.txt"),
        lambda: s3.get_object(Bucket=context["events"][0]["id"], Key="meta.txt")["Body"].read(),
    ]  # fmt: skip
    for read in reads:
        try:
            read()
        except Exception as exc:
            failures.append(f"{type(exc).__name__}: {str(exc)[:200]}")
    return {
        "validated": [{"name": "names_05", "type": "AWS::S3::Bucket", "id": "names", "status": "not_found"}],
        "success": False,
        "message": json.dumps({"bodies": bodies, "failures": failures})[:900_000],
    }
