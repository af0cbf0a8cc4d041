"""Refuse network connections that leave loopback: installed by the test suite, in-process and in workers.

Tests never touch real AWS. Every refused address is also recorded, so a test can fail even when the code
under test swallowed the error.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from typing import Any

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})
refused: list[str] = []


class NetworkRefused(ConnectionRefusedError):
    """A connection or lookup that would have left this machine."""


def is_loopback(host: Any) -> bool:
    """True for loopback names and addresses (127.0.0.0/8, ::1)."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode()
    if str(host).lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def is_invalid(host: Any) -> bool:
    """True for a name under .invalid, which no resolver may resolve (a test's unresolvable host)."""
    name = (host.decode() if isinstance(host, bytes) else str(host or "")).lower().rstrip(".")
    return name == "invalid" or name.endswith(".invalid")


def _refuse(what: str) -> None:
    refused.append(what)
    print(f"netguard: refused {what}: tests talk only to loopback", file=sys.stderr)
    raise NetworkRefused(f"netguard: refused {what}: tests talk only to loopback")


def install() -> None:
    """Patch socket connect, connect_ex and getaddrinfo; idempotent."""
    if getattr(socket.socket.connect, "_netguard", False):
        return
    real_connect, real_connect_ex, real_getaddrinfo = (
        socket.socket.connect,
        socket.socket.connect_ex,
        socket.getaddrinfo,
    )

    def check(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not is_loopback(address[0]):
            _refuse(f"connection to {address[0]}:{address[1]}")

    def connect(self: socket.socket, address: Any) -> None:
        check(self, address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check(self, address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if is_invalid(host):  # RFC 6761: never resolves, anywhere; said as the resolver would, without asking it
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        if not is_loopback(host):
            _refuse(f"name lookup of {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    connect._netguard = True  # type: ignore[attr-defined]
    # the patch is the point: typeshed's signature names the address's types, ours takes Any and refuses
    socket.socket.connect = connect  # type: ignore[method-assign, assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign, assignment]
    socket.getaddrinfo = getaddrinfo


if __name__ != "__main__":
    install()
