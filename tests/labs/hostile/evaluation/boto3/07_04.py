"""Starts threads until it cannot (each is a task of the kernel, and a stack)."""

import threading
import time


async def run(session, context, logger):
    started = []
    for _ in range(100_000):
        thread = threading.Thread(target=time.sleep, args=(30,), daemon=True)
        thread.start()
        started.append(thread)
    return {"validated": [{"name": "threads_04", "type": "AWS::S3::Bucket", "id": "x", "status": "found"}],
            "success": True, "message": f"{len(started)} threads"}
