"""Whether the machine has CPU to spare, from /proc/stat: a spare evaluation process rehearses its job (copying
the pages the job will write, ahead of it) only then. On a busy machine the rehearsal is CPU taken from the
evaluations running, for a latency gain nobody sees: the job pays its own page copies instead.
"""

from __future__ import annotations

import time

IDLE_SHARE = 0.25  # of all CPUs idle over the last window: half a core on two
WINDOW_S = 0.05  # shorter spans between readings keep the last verdict (a burst of spawns reads once)


class IdleCpu:
    """The idle share of the machine's CPUs since the previous reading, and what it says for spares."""

    def __init__(self, stat_path: str = "/proc/stat") -> None:
        self._path = stat_path
        self._last = self._read()
        self._read_at = time.monotonic()
        self._spare = True

    def _read(self) -> tuple[int, int] | None:
        """(idle, total) jiffies of all CPUs; None where /proc/stat cannot be read (not Linux)."""
        try:
            with open(self._path, "rb") as stat:
                fields = [int(value) for value in stat.readline().split()[1:]]
            return fields[3] + (fields[4] if len(fields) > 4 else 0), sum(fields[:8])
        except (OSError, ValueError, IndexError):
            return None

    def to_spare(self) -> bool:
        """Whether at least IDLE_SHARE of the CPUs were idle since the last reading (True when it cannot be told)."""
        now = time.monotonic()
        if now - self._read_at < WINDOW_S:
            return self._spare
        current = self._read()
        if current is not None and self._last is not None and current[1] > self._last[1]:
            idle, total = current[0] - self._last[0], current[1] - self._last[1]
            self._spare = idle / total >= IDLE_SHARE
        self._last, self._read_at = current, now
        return self._spare
