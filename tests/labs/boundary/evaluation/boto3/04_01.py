"""Writes its own reply on the job channel first, with an error kind no one knows: an HTTP 500, and the evaluation
(which made a read) was not recorded."""

from ._lib import channel_fd, result
from harness.core.frames import write_frame


async def run(session, context, logger):
    session.client("s3").list_buckets()
    write_frame(channel_fd(), {"outcome": "error", "kind": "pwned", "detail": "forged"})
    return result("kind_01", "forged")
