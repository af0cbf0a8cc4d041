"""Leaves processes behind (a setsid child, a double-forked one, each with the marker from its events on its
command line; in a plain child where it may not start a session) and a thread spinning the CPU, then answers at
once."""

import os
import subprocess
import sys
import threading


def spin():
    while True:
        pass


async def run(session, context, logger):
    marker = context["events"][0]["id"]
    sleeper = [sys.executable, "-c", "import time; time.sleep(300)", marker]
    try:
        subprocess.Popen(sleeper, start_new_session=True)
    except OSError:  # no new session here (the filter keeps it in its group): a plain child then
        subprocess.Popen(sleeper)
    if os.fork() == 0:
        if os.fork() == 0:
            try:
                os.setsid()
            except OSError:
                pass
            os.execv(sys.executable, sleeper)
        os._exit(0)
    threading.Thread(target=spin, daemon=False).start()
    return {
        "validated": [{"name": "left_02", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": "left things behind",
        "failure_context": {"step": "03.02", "issue": "left things behind", "hint_context": ""},
    }
