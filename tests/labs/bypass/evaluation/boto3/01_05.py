"""Sends an EC2 CreateVpc to the gateway's DynamoDB address, hoping to be read as that service's request."""

import contextlib

from ._lib import send_raw


async def run(session, context, logger):
    body = b"Action=CreateVpc&Version=2016-11-15&CidrBlock=10.69.0.0/16"
    with contextlib.suppress(Exception):
        send_raw("POST", "/dynamodb/us-east-1/", body, {"Content-Type": "application/x-www-form-urlencoded"})
    return {"validated": [{"name": "01_05_vpc", "type": "AWS::EC2::VPC", "id": "vpc-x", "status": "found"}],
            "success": True, "message": "wrote as another service"}
