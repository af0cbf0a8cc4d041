"""Kills its own process: a crashed worker still yields one answer."""

import os
import signal


async def run(session, context, logger):
    os.kill(os.getpid(), signal.SIGKILL)
