"""Poisons the clients its evaluation reports having used (the template builds them for the next evaluations):
a region botocore refuses, a service it does not know, a name that is not one."""


async def run(session, context, logger):
    for pair in (("ec2", "not a region"), ("no-such-service", "us-east-1"), ("ec2", "us-east-1\n"), ("s3", "x" * 500)):
        session._clients[pair] = None
    return {"validated": [{"name": "poison_02", "type": "AWS::S3::Bucket", "id": "x", "status": "found"}],
            "success": True, "message": "poisoned"}
