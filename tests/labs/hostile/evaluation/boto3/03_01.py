"""Signals its parent (host pid in the events), every pid it can see, and everything it may (kill -1)."""

import os
import signal


async def run(session, context, logger):
    hit = []
    targets = [int(e["id"]) for e in context["events"] if e["id"].isdigit()]
    try:
        targets += [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
    except OSError:
        targets += range(1, 400)
    targets += [os.getppid()]
    for pid in targets:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(pid, sig)
                hit.append(pid)
            except OSError:
                pass
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    message = f"signalled {sorted(set(hit))}"
    return {
        "validated": [{"name": "kill_01", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": message,
        "failure_context": {"step": "03.01", "issue": message, "hint_context": ""},
    }
