"""What the attacks share: their own connections to the gateway, the job channel's fd, and a result."""

import os
import socket

import harness.inside.worker


def raw(data: bytes, timeout: float = 15.0) -> bytes:
    """`data` on a connection of our own, opened as the link opens its own (the preamble with this evaluation's
    token); what comes back before the gateway closes it, answers the whole (or `timeout`)."""
    link = harness.inside.worker.LINK
    line = socket.socket(socket.AF_UNIX)
    line.settimeout(timeout)
    try:
        line.connect(link._socket_path)
        line.sendall(link._preamble + data)
        answer = b""
        while chunk := line.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer and b"Connection: close" not in answer:
                break
        return answer
    except OSError as exc:
        return f"({type(exc).__name__})".encode()
    finally:
        line.close()


def status(answer: bytes) -> str:
    return answer[9:12].decode(errors="replace") if answer.startswith(b"HTTP/1.1 ") else answer[:40].decode()


def request(method: str, target: str, headers: dict, body: bytes = b"") -> bytes:
    lines = [f"{method} {target} HTTP/1.1", "Host: gateway", *(f"{k}: {v}" for k, v in headers.items())]
    if body and "Content-Length" not in headers:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def channel_fd() -> int:
    """The job channel: the one socket of a socket pair (no peer address) among this process's fds (tried in turn:
    Landlock hides /proc/self/fd)."""
    for fd in range(3, 1024):
        try:
            probe = socket.socket(fileno=os.dup(fd))
        except OSError:
            continue
        try:
            if probe.family == socket.AF_UNIX and probe.type == socket.SOCK_STREAM and probe.getpeername() == "":
                return fd
        except OSError:
            pass
        finally:
            probe.close()
    raise RuntimeError("no job channel found")


def result(name: str, message: str, success: bool = True) -> dict:
    return {"validated": [{"name": name, "type": "AWS::S3::Bucket", "id": "x", "status": "found"}],
            "success": success, "message": message}
