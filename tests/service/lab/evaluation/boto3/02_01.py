"""Sleeps for 30 s: the test service that runs it has a 4 s request deadline, so it is always cut short."""

import asyncio


async def run(session, context, logger):
    await asyncio.sleep(30)
    return {"validated": [], "success": True, "message": "unreachable"}
