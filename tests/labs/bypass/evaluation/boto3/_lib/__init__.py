"""What a hostile module finds in its own process (the gateway's socket, this evaluation's token), and a request
sent with them by hand: raw bytes on the socket, past botocore and every hook."""

import socket

import harness.inside.worker


def gateway_line() -> tuple[str, bytes]:
    """The socket path and the preamble (token included) the process's link opens connections with."""
    return harness.inside.worker.LINK._socket_path, harness.inside.worker.LINK._preamble


def send_raw(method: str, target: str, body: bytes, headers: dict[str, str]) -> bytes:
    """One request written by hand on a connection of our own; the first bytes of the answer."""
    path, preamble = gateway_line()
    head = [f"{method} {target} HTTP/1.1", "Host: gateway", f"Content-Length: {len(body)}"]
    head += [f"{name}: {value}" for name, value in headers.items() if name.lower() not in ("host", "content-length")]
    with socket.socket(socket.AF_UNIX) as line:
        line.connect(path)
        line.sendall(preamble + "\r\n".join([*head, "", ""]).encode() + body)
        return line.recv(65536)
