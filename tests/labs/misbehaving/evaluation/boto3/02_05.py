"""Calls sys.exit(), which must not end the worker's answer."""

import sys


async def run(session, context, logger):
    sys.exit(3)
