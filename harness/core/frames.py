"""Length-prefixed JSON frames between the harness and its worker processes (JSON, never pickle: the
worker runs author code, and nothing it writes may execute in the parent)."""

from __future__ import annotations

import json
import math
import os
import select
import struct
import time
from typing import Any

HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = 16 * 1024 * 1024
MAX_NESTING = 64  # containers within containers in one frame (a result's checks need a handful)


class ChannelClosed(Exception):
    """The other end went away (a worker that exited or crashed)."""


class FrameRefused(ChannelClosed):
    """A frame that is not what the protocol sends (not JSON, not an object, nested past MAX_NESTING): the other
    end is not trusted further."""


class FrameTimeout(Exception):
    """No complete frame arrived before the deadline."""


def write_frame(fd: int, message: dict[str, Any]) -> None:
    """Send one message."""
    payload = json.dumps(message, separators=(",", ":")).encode()
    data = HEADER.pack(len(payload)) + payload
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BrokenPipeError:
            raise ChannelClosed("the other end closed the channel") from None
        view = view[written:]


def read_frame(fd: int, deadline: float | None = None) -> dict[str, Any]:
    """Receive one message, waiting at most until `deadline` (a time.monotonic() value)."""
    (length,) = HEADER.unpack(_read_exactly(fd, HEADER.size, deadline))
    if length > MAX_FRAME_BYTES:
        raise FrameRefused(f"frame of {length} bytes exceeds the {MAX_FRAME_BYTES}-byte limit")
    return parse_frame(_read_exactly(fd, length, deadline))


def parse_frame(payload: bytes) -> dict[str, Any]:
    """A frame's JSON object, its nesting bounded; FrameRefused otherwise (never a RecursionError)."""
    try:
        message = json.loads(payload)
    except (ValueError, RecursionError):
        raise FrameRefused("a frame that is not JSON, or nested too deep to read") from None
    if not isinstance(message, dict):
        raise FrameRefused("a frame that is not a JSON object")
    pending: list[tuple[Any, int]] = [(message, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > MAX_NESTING:
            raise FrameRefused(f"a frame nested more than {MAX_NESTING} deep")
        if isinstance(value, dict):
            for key, child in list(value.items()):
                if not _encodable(key):
                    del value[key]
                    key = _mended(key)
                value[key] = _mended(child) if isinstance(child, str) else child
            children = value.values()
        else:
            value[:] = [_mended(child) if isinstance(child, str) else child for child in value]
            children = value
        pending.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return message


def _encodable(text: str) -> bool:
    """Whether `text` is valid Unicode text (JSON's \\ud800 escapes make lone surrogates, which no UTF-8 writer
    takes: an answer holding one could be neither sent nor stored)."""
    if text.isascii():
        return True
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _mended(text: str) -> str:
    """`text` with each lone surrogate replaced by "?"."""
    return text if _encodable(text) else text.encode(errors="replace").decode()


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not readable([fd], wait):
                raise FrameTimeout()
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ChannelClosed("the other end closed the channel")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def readable(watched: list[Any], timeout_s: float) -> list[Any]:
    """Those of `watched` (descriptors, or objects with `fileno()`) ready to read, or at their end, within
    `timeout_s`: poll(2), not select(2), which refuses a descriptor past 1023 (a harness raises its own limit:
    `limits.raise_open_files`)."""
    poller = select.poll()
    by_fd: dict[int, Any] = {}
    for item in watched:
        fd = item if isinstance(item, int) else item.fileno()
        by_fd[fd] = item
        poller.register(fd, select.POLLIN)
    return [by_fd[fd] for fd, _ in poller.poll(math.ceil(max(timeout_s, 0.0) * 1000))]


class FrameBuffer:
    """Bytes of one frame as they arrive (read alongside another pipe); `message` once the frame is whole."""

    def __init__(self) -> None:
        self._data = bytearray()
        self.message: dict[str, Any] | None = None

    def feed(self, chunk: bytes) -> bool:
        """Add bytes; True once a whole frame is in (FrameRefused if it announces more than the limit, or is not a
        bounded JSON object)."""
        self._data += chunk
        if len(self._data) < HEADER.size:
            return False
        (length,) = HEADER.unpack_from(self._data)
        if length > MAX_FRAME_BYTES:
            raise FrameRefused(f"frame of {length} bytes exceeds the {MAX_FRAME_BYTES}-byte limit")
        if len(self._data) < HEADER.size + length:
            return False
        self.message = parse_frame(bytes(self._data[HEADER.size : HEADER.size + length]))
        return True
