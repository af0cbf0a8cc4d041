"""Reaches moto's own API (/moto-api/: every account's state, a reset of all) through reads the gateway allows:
S3's GetObject on a bucket named moto-api, and a JSON and a query read whose request is sent to /moto-api/ (a
botocore hook moves the URL). The gateway refuses each: the answer is the read-only error naming them."""

import json


def _to(path):
    def move(request, **_):
        request.url = request.url.rstrip("/") + path

    return move


async def run(session, context, logger):
    outcomes = {}
    try:
        session.client("s3").get_object(Bucket="moto-api", Key="data.json")["Body"].read()
        outcomes["s3"] = "read"
    except Exception as exc:
        outcomes["s3"] = type(exc).__name__ + ": " + str(exc)[:200]
    for service, call, path in (
        ("logs", "describe_log_groups", "/moto-api/data.json"),
        ("iam", "list_users", "/moto-api/reset"),
        ("sqs", "list_queues", "/moto-api/seed?a=42"),
    ):
        client = session.client(service)
        client.meta.events.register("before-send", _to(path))
        try:
            getattr(client, call)()
            outcomes[service] = "answered"
        except Exception as exc:
            outcomes[service] = type(exc).__name__ + ": " + str(exc)[:200]
    return {
        "validated": [{"name": "admin_01", "type": "AWS::S3::Bucket", "id": "moto-api", "status": "not_found"}],
        "success": False,
        "message": json.dumps(outcomes),
    }
