"""Leaves 30 slow reads in flight and answers after half a second (issue 31): the gateway kept forwarding them up
to its read timeout, and the next evaluation waited for a busy endpoint. Each thread reads again and again:
DescribeImages, which tests/sandbox/test_hostile.py has the emulator hold for many seconds, so that the 16 forwarded
at the answer would keep a gateway that does not cut them busy well past it (reads that end by themselves within
seconds could not tell a gateway that cuts from one that does not)."""

import threading
import time


def _slow(session, i, stop):
    ec2 = session.client("ec2", region_name=["eu-central-1", "ap-northeast-1", "sa-east-1"][i % 3])
    while time.monotonic() < stop:
        try:
            ec2.describe_images()
        except Exception:
            pass


async def run(session, context, logger):
    stop = time.monotonic() + 60
    for i in range(30):
        threading.Thread(target=_slow, args=(session, i, stop), daemon=True).start()
    time.sleep(0.5)
    return {
        "validated": [{"name": "slow_07", "type": "AWS::S3::Bucket", "id": "slow", "status": "not_found"}],
        "success": False,
        "message": "left 30 slow reads in flight",
    }
