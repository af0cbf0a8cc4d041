"""Blocks the worker's thread: only killing the process ends it."""

import time


async def run(session, context, logger):
    time.sleep(120)
