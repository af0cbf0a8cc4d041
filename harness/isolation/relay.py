"""The worker's way to the gateway: a TCP listener on the worker's loopback that pipes each connection to the
gateway's unix socket, after a preamble naming the evaluation's token.

botocore in the worker is pointed at `http://127.0.0.1:PORT/{service}/{region}` with dummy credentials; the
relay is all it can reach. It holds nothing worth stealing: the token opens only this evaluation's reads.
"""

from __future__ import annotations

import contextlib
import socket
import threading

PREAMBLE = b"STEPEVAL/1 "
BUFFER_BYTES = 64 * 1024


class Relay:
    """Listens on host:port (0: any free port) in a daemon thread until closed; `url` is what botocore is given."""

    def __init__(self, socket_path: str, token: str, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self._listener = socket.create_server((host, port), backlog=64)
        self._socket_path = socket_path
        self._preamble = PREAMBLE + token.encode("ascii") + b"\n"
        self.port: int = self._listener.getsockname()[1]
        self.url = f"http://{host}:{self.port}"
        threading.Thread(target=self._accept, name="stepeval-relay", daemon=True).start()

    def close(self) -> None:
        """Stop accepting; connections already open end with their evaluation."""
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        """One connection: to the gateway with the preamble, then bytes both ways until both ends are done."""
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with client, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as gateway:
            try:
                gateway.connect(self._socket_path)
                gateway.sendall(self._preamble)
            except OSError:
                return
            back = threading.Thread(target=_pipe, args=(gateway, client), daemon=True)
            back.start()
            _pipe(client, gateway)
            back.join()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    """Copy until the source ends, then end the sink's side too."""
    try:
        while chunk := source.recv(BUFFER_BYTES):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)
        with contextlib.suppress(OSError):
            source.shutdown(socket.SHUT_RD)
