"""Signs a CreateVpc request with SigV4 by hand and writes it on a gateway connection of its own, past every
botocore hook."""

import contextlib

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest

from ._lib import send_raw


async def run(session, context, logger):
    endpoint = session.client("ec2").meta.endpoint_url
    request = AWSRequest("POST", endpoint + "/", data=b"Action=CreateVpc&Version=2016-11-15&CidrBlock=10.68.0.0/16",
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
    SigV4Auth(session.get_credentials().get_frozen_credentials(), "ec2", "us-east-1").add_auth(request)
    prepared = request.prepare()
    with contextlib.suppress(Exception):
        send_raw("POST", "/ec2/us-east-1/", prepared.body, dict(prepared.headers))
    return {"validated": [{"name": "01_03_vpc", "type": "AWS::EC2::VPC", "id": "vpc-x", "status": "found"}],
            "success": True, "message": "wrote by hand"}
