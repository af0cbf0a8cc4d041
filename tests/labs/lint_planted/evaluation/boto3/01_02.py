"""Every planted problem, one per line, for tests/commands/test_lint.py."""

import time
from time import sleep as nap

import boto3
from boto3 import client as make_client


async def run(session, context, logger):
    s3 = session.client("s3")
    s3.put_bucket_policy(Bucket="b", Policy="{}")
    boto3.client("s3")
    make_client("ec2")
    time.sleep(1)
    nap(1)
    session.resource("s3").Bucket("b").delete()
    return {"name": "01_03_vpc"}
