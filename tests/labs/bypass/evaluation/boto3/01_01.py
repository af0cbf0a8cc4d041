"""Copies the session's credentials and endpoint into a fresh, unguarded boto3 Session, then writes."""

import contextlib

import boto3


async def run(session, context, logger):
    ec2 = session.client("ec2")
    frozen = session.get_credentials().get_frozen_credentials()
    rogue = boto3.Session(frozen.access_key, frozen.secret_key, frozen.token, region_name=session.region_name)
    with contextlib.suppress(Exception):
        rogue.client("ec2", endpoint_url=ec2.meta.endpoint_url).create_vpc(CidrBlock="10.66.0.0/16")
    return {"validated": [{"name": "01_01_vpc", "type": "AWS::EC2::VPC", "id": "vpc-x", "status": "found"}],
            "success": True, "message": "wrote with copied credentials"}
