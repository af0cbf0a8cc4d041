"""Starts a process of its own, then hangs: the timeout must end both."""

import subprocess
import sys
import time


async def run(session, context, logger):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    logger.warning("child pid %d", child.pid)
    with open(context["events"][0]["id"], "w") as pid_file:
        pid_file.write(str(child.pid))
    time.sleep(120)
