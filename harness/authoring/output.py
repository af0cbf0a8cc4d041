"""What a solution or a solve prints goes to stderr, never into a command's stdout (where `--json` writes).

The lanes act in threads of their own while the main thread may write the report, so `sys.stdout` is swapped,
while any thread acts, for a stand-in that sends the acting threads' writes to stderr and every other thread's to
the stdout it replaced (`contextlib.redirect_stdout` is one global swap: two lanes restoring it out of order would
leave stdout pointing at stderr).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

_acting = threading.local()
_lock = threading.Lock()
_installed: list[_ByThread] = []  # the stand-in while any thread acts, with how many do


class _ByThread:
    """A stdout whose writes from acting threads go to stderr."""

    def __init__(self, stdout: TextIO) -> None:
        self.stdout = stdout
        self.users = 0

    def _target(self) -> TextIO:
        return sys.stderr if getattr(_acting, "depth", 0) else self.stdout

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target(), name)


@contextmanager
def prints_to_stderr() -> Iterator[None]:
    """While inside, what this thread prints goes to stderr; other threads' prints are unchanged."""
    with _lock:
        if not _installed:
            _installed.append(_ByThread(sys.stdout))
            sys.stdout = _installed[0]
        _installed[0].users += 1
    _acting.depth = getattr(_acting, "depth", 0) + 1
    try:
        yield
    finally:
        _acting.depth -= 1
        with _lock:
            stand_in = _installed[0]
            stand_in.users -= 1
            if not stand_in.users:
                _installed.clear()
                if sys.stdout is stand_in:
                    sys.stdout = stand_in.stdout
