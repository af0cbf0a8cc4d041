"""Leaves processes behind (a setsid child, a double-forked one, each with the marker from its events on its
command line) and a thread spinning the CPU, then answers at once."""

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
    subprocess.Popen(sleeper, start_new_session=True)
    if os.fork() == 0:
        if os.fork() == 0:
            os.setsid()
            os.execv(sys.executable, sleeper)
        os._exit(0)
    threading.Thread(target=spin, daemon=False).start()
    return {
        "validated": [{"name": "left_02", "type": "AWS::S3::Bucket", "id": None, "status": "not_found"}],
        "success": False,
        "message": "left things behind",
        "failure_context": {"step": "03.02", "issue": "left things behind", "hint_context": ""},
    }
