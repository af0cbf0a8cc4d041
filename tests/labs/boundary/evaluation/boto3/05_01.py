"""Leaves a read in flight when it answers: an object read a kilobyte at a time in a thread, the answer given after
its first kilobyte (a read still going at the answer was missing from the record store)."""

import threading

from ._lib import result


async def run(session, context, logger):
    started = threading.Event()

    def read() -> None:
        body = session.client("s3").get_object(Bucket="big-bucket", Key="big")["Body"]
        body.read(1024)
        started.set()
        while body.read(1024):
            threading.Event().wait(0.5)

    threading.Thread(target=read, daemon=True).start()
    started.wait(15)
    return result("flight_01", "answered with a read in flight")
