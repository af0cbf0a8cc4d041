"""The next evaluation: what 08.01 left in extended attributes on the gateway's directory and socket, its lab and
the paths in the events. Answers the gateway's socket and what it found."""

import json
import os

import harness.inside.worker


async def run(session, context, logger):
    gateway = harness.inside.worker.LINK._socket_path
    here = os.path.dirname(os.path.abspath(__file__))
    found = {}
    for path in [os.path.dirname(gateway), gateway, here, *(e["id"] for e in context["events"])]:
        try:
            found[path] = os.getxattr(path, "user.stepeval-hostile").decode()
        except OSError:
            pass
    message = json.dumps({"gateway": gateway, "found": found})
    return {
        "validated": [{"name": "meta_02", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": message,
        "failure_context": {"step": "08.02", "issue": message, "hint_context": ""},
    }
