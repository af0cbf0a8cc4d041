"""Keeps state for the next evaluation: the session in a global, the credentials in builtins, is_read and
SigV4Auth.add_auth patched. Reports what it found left by the previous run (all zero when evaluations are
isolated)."""

import builtins
import json

from botocore.auth import SigV4Auth

import harness.core.readonly

STASH = []


def always(*args, **kwargs):
    return True


always.poisoned = True


async def run(session, context, logger):
    found = {
        "stash": len(STASH),
        "builtins": hasattr(builtins, "stepeval_poison"),
        "is_read": getattr(harness.core.readonly.is_read, "poisoned", False),
        "add_auth": getattr(SigV4Auth.add_auth, "poisoned", False),
    }
    STASH.append(session)
    builtins.stepeval_poison = session.get_credentials()
    harness.core.readonly.is_read = always
    SigV4Auth.add_auth = always
    message = json.dumps(found, sort_keys=True)
    return {
        "validated": [{"name": "stash_01", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": message,
        "failure_context": {"step": "02.01", "issue": message, "hint_context": ""},
    }
