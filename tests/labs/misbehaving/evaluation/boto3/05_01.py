"""Reports which process it runs in (pid and start time): a fresh one each evaluation."""

import os


async def run(session, context, logger):
    with open(f"/proc/{os.getpid()}/stat") as stat:
        started = stat.read().split(") ")[1].split()[19]
    where = f"{os.getpid()}:{started}"
    return {
        "validated": [{"name": "05_01_bucket", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": where,
        "failure_context": {"step": "05.01", "issue": where, "hint_context": ""},
    }
