"""Spells a message into the regions of the clients it builds (the template used to build them for the next
evaluations, in any account): a region per bit."""

from ._lib import result

REGIONS = ["eu-west-3", "ap-south-2", "me-central-1", "sa-east-1", "ca-central-1", "af-south-1", "eu-north-1",
           "ap-northeast-3"]


async def run(session, context, logger):
    message = 0b10110101
    for bit, region in enumerate(REGIONS):
        if message >> bit & 1:
            session.client("s3", region_name=region).list_buckets()
            session.client("sqs", region_name=region)
    return result("spell_01", "spelled")
