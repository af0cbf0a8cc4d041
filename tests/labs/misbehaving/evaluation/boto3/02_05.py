"""Prints to stdout, then calls sys.exit(): neither may spoil the one JSON answer."""

import sys


async def run(session, context, logger):
    print("noise on stdout")
    sys.exit(3)
