"""The rich Console the commands print with: on a terminal as rich makes it; in a pipe or a file, each line
without the spaces rich pads it with to the console's width (`stepeval test | cat`, a CI log)."""

from __future__ import annotations

import io
from typing import IO, cast

from rich.console import Console


def output_console(*, stderr: bool = False) -> Console:
    """A Console on stdout (or stderr); lines' trailing spaces dropped when it is not a terminal."""
    plain = Console(stderr=stderr)
    if plain.is_terminal:
        return plain
    return Console(file=cast(IO[str], TrimmedLines(plain.file)), width=plain.width)  # a text stream, as IO[str] says


class TrimmedLines(io.TextIOBase):
    """Writes to `stream` with each line's trailing spaces dropped; a line not ended yet waits for its end (or a
    flush, which writes it as it is: what follows continues it)."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__()
        self.stream = stream
        self._open = ""

    def write(self, text: str) -> int:
        *ended, self._open = (self._open + text).split("\n")
        if ended:
            self.stream.write("".join(line.rstrip(" ") + "\n" for line in ended))
        return len(text)

    def flush(self) -> None:
        if self._open:
            self.stream.write(self._open)
            self._open = ""
        self.stream.flush()

    def isatty(self) -> bool:
        return False
