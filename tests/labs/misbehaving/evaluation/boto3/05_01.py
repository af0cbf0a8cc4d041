"""Reports which process it runs in and how many evaluations that process has run: a fresh one each time."""

import builtins
import os


async def run(session, context, logger):
    # kept on builtins, which outlives a re-import of this module in a process that ran it before
    seen = builtins.__dict__.setdefault("_stepeval_test_process", {"nonce": os.urandom(8).hex(), "runs": 0})
    seen["runs"] += 1
    where = f"{seen['nonce']}:{seen['runs']}"
    return {
        "validated": [{"name": "05_01_bucket", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": where,
        "failure_context": {"step": "05.01", "issue": where, "hint_context": ""},
    }
