"""Writes its own reply first, nested 200,000 deep (400 KB: within the answer limit, so the frame is read): the frame
reader raised an uncaught RecursionError."""

import os
import struct

from ._lib import channel_fd, result


async def run(session, context, logger):
    session.client("s3").list_buckets()
    payload = b'{"outcome":"returned","result":' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    fd = channel_fd()
    data = struct.pack(">I", len(payload)) + payload
    while data:
        data = data[os.write(fd, data):]
    return result("nested_02", "forged")
