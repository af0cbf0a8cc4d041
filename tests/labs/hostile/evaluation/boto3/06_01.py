"""Floods the gateway: opens up to 1000 connections to its socket, each with this evaluation's token and a read,
holds them all, then counts how many were answered. Every connection it holds would be a thread of the service."""

import socket
import time

import harness.inside.worker

FORM = b"Action=GetCallerIdentity&Version=2011-06-15"
READ = (
    b"POST /sts/us-east-1/ HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    b"Content-Length: %d\r\n\r\n%s" % (len(FORM), FORM)
)


async def run(session, context, logger):
    path, preamble = harness.inside.worker.LINK._socket_path, harness.inside.worker.LINK._preamble
    held = []
    for _ in range(1000):
        line = socket.socket(socket.AF_UNIX)
        try:
            line.connect(path)
            line.sendall(preamble + READ)
        except OSError:
            line.close()
            break
        held.append(line)
    time.sleep(1.0)
    answered = 0
    for line in held:
        line.settimeout(2)
        try:
            answered += line.recv(16).startswith(b"HTTP/1.1 200")
        except OSError:
            pass
    return {"validated": [{"name": "flood_01", "type": "AWS::S3::Bucket", "id": "x", "status": "found"}],
            "success": True, "message": f"answered:{answered} opened:{len(held)}"}
