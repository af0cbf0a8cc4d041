"""3000 refused requests with 8 KB paths on kept-alive connections: 400 such made a 22.9 MiB diagnostics.operations,
past the frame limit."""

import socket

import harness.inside.worker
from ._lib import result


def answer_of(line: socket.socket, buffer: bytes) -> bytes:
    while b"\r\n\r\n" not in buffer:
        buffer += line.recv(65536)
    head, _, rest = buffer.partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    while len(rest) < length:
        rest += line.recv(65536)
    return rest[length:]


async def run(session, context, logger):
    link = harness.inside.worker.LINK
    sent = 0
    line = None
    for _ in range(3000):
        if line is None:
            line = socket.socket(socket.AF_UNIX)
            line.connect(link._socket_path)
            line.sendall(link._preamble)
        target = "/ec2/us-east-1/" + "a" * 8000
        try:
            line.sendall(f"GET {target} HTTP/1.1\r\nHost: gateway\r\n\r\n".encode())
            answer_of(line, b"")
            sent += 1
        except (OSError, IndexError, ValueError):
            line.close()
            line = None
    return result("log_02", f"sent:{sent}")
