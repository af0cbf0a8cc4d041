"""Answers at once, leaving a task that never ends and a thread in the event loop's executor that sleeps a minute."""

import asyncio
import time

LEFT = set()


async def run(session, context, logger):
    loop = asyncio.get_running_loop()
    LEFT.add(loop.run_in_executor(None, time.sleep, 60))
    LEFT.add(asyncio.ensure_future(asyncio.Event().wait()))
    entry = {"name": "02_10_bucket", "type": "AWS::S3::Bucket", "id": "left-behind", "status": "found"}
    return {"validated": [entry], "success": True, "message": "answered, work left running"}
