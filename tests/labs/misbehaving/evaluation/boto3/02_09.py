"""Starts processes of its own (one in a new session, one double-forked), then hangs: the timeout must end all."""

import os
import subprocess
import sys
import time


async def run(session, context, logger):
    marker = context["events"][0]["id"]
    sleeper = [sys.executable, "-c", "import time; time.sleep(120)", marker]
    subprocess.Popen(sleeper, start_new_session=True)
    if os.fork() == 0:
        if os.fork() == 0:
            os.setsid()
            os.execv(sys.executable, sleeper)
        os._exit(0)
    time.sleep(120)
