"""Leaves 30 slow reads in flight and answers after half a second (issue 31): the gateway kept forwarding them up
to its read timeout, and the next evaluation waited for a busy endpoint. Each thread reads again and again:
DescribeImages, ~0.6 s of the emulator's CPU each, so that the 16 forwarded at the answer would keep a gateway that
does not cut them busy for seconds past it (the emulator still answers each one it was sent, which the run pays:
DescribeInstanceTypes, ~1.7 s each, made it pay twice that)."""

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
