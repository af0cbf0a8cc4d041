"""Ends its own process without answering: a process that dies still yields one answer."""

import os


async def run(session, context, logger):
    os._exit(9)
