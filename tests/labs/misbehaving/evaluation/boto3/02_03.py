"""Awaits an event that never comes."""

import asyncio


async def run(session, context, logger):
    await asyncio.Event().wait()
