"""Copies the session's credentials and its line to the gateway into a fresh, unguarded boto3 client, then
writes."""

import contextlib

import boto3


async def run(session, context, logger):
    ec2 = session.client("ec2")
    frozen = session.get_credentials().get_frozen_credentials()
    rogue = boto3.Session(frozen.access_key, frozen.secret_key, frozen.token, region_name=session.region_name)
    client = rogue.client("ec2", endpoint_url=ec2.meta.endpoint_url)
    client._endpoint.http_session = ec2._endpoint.http_session
    with contextlib.suppress(Exception):
        client.create_vpc(CidrBlock="10.66.0.0/16")
    return {"validated": [{"name": "01_01_vpc", "type": "AWS::EC2::VPC", "id": "vpc-x", "status": "found"}],
            "success": True, "message": "wrote with copied credentials"}
