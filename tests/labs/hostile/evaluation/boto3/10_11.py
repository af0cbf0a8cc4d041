"""Holds as many descriptors in flight on a unix socket it never reads as its uid may (past its RLIMIT_NOFILE, which
its step sets to 4096), for 4 s: the uid's `unix_inflight`, which every evaluation and the service share where they
share a uid, is then past the service's own RLIMIT_NOFILE where that is 1024 (systemd's default), and the service's
own descriptor passing (to its template, at each new evaluation process) is refused."""

import json
import socket
import time


async def run(session, context, logger):
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    sent, stop = 0, "none"
    while sent < 100_000:
        try:
            socket.send_fds(ours, [b"x"], [theirs.fileno()] * 250)
        except OSError as exc:
            stop = exc.strerror
            break
        sent += 250
    time.sleep(4)
    return {
        "validated": [{"name": "flight_11", "type": "AWS::S3::Bucket", "id": "x", "status": "not_found"}],
        "success": False,
        "message": json.dumps({"in_flight": sent, "stop": stop}),
    }
