"""Huge pages for the template's memory: each fork copies, and each evaluation's exit frees, its page-table entries
a 2 MiB folio at a time instead of page by page, still so once a write has split a huge page's mapping
(`MADV_COLLAPSE`, Linux 6.1+; nothing where transparent huge pages are `never` or the kernel refuses it)."""

from __future__ import annotations

import errno
import logging
import mmap
from pathlib import Path

from harness.sandbox import kernel

MADV_COLLAPSE = 25
PAGE_SIZE = mmap.PAGESIZE
THP = Path("/sys/kernel/mm/transparent_hugepage")
_unavailable: list[str] = []  # why this process collapses nothing (said once, at debug)


def huge_page_size() -> int:
    """The size of a huge page mapped by one page-table entry (2 MiB on x86-64); 0 where there are none."""
    try:
        if "[never]" in (THP / "enabled").read_text():
            return 0
        return int((THP / "hpage_pmd_size").read_text())
    except (OSError, ValueError):
        return 0


def collapsible_ranges(maps: str, size: int) -> list[tuple[int, int]]:
    """The whole huge pages (start, length) inside the private writable anonymous mappings of `maps` (the text of
    /proc/PID/maps): the heap and the anonymous mappings (the interpreter's arenas, large allocations)."""
    ranges = []
    for line in maps.splitlines():
        fields = line.split()
        if len(fields) < 5 or fields[1] != "rw-p" or fields[5:] not in ([], ["[heap]"]):
            continue
        low, high = (int(bound, 16) for bound in fields[0].split("-"))
        start, end = -(-low // size) * size, high // size * size
        if end > start:
            ranges.append((start, end - start))
    return ranges


def collapse() -> int:
    """Map this process's private anonymous memory by huge pages wherever a whole one fits (copying it into them
    once; a range mapped so already costs nothing); the bytes it holds in huge pages then. 0, and nothing done,
    where the kernel cannot."""
    size = 0 if _unavailable else huge_page_size()
    if not size:
        _say_unavailable("transparent huge pages are off (never) or unknown here")
        return 0
    refused: OSError | None = None
    collapsed = False
    for start, length in collapsible_ranges(Path("/proc/self/maps").read_text(), size):
        try:
            kernel.madvise(start, length, MADV_COLLAPSE)
            collapsed = True
        except OSError as exc:  # EAGAIN/ENOMEM/EBUSY/EINVAL: a page was busy, none was free, or a range cannot be
            refused = refused or exc  # (the rest of each range is collapsed all the same)
    huge = anonymous_huge_bytes()
    if not collapsed and not huge and refused is not None and refused.errno == errno.EINVAL:
        _say_unavailable(f"MADV_COLLAPSE refused (before Linux 6.1, or huge pages off for this process): {refused}")
    return huge


def anonymous_huge_bytes(pid: int | str = "self") -> int:
    """The anonymous memory process `pid` maps by huge pages (AnonHugePages)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("AnonHugePages:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def anonymous_bytes() -> int:
    """This process's resident anonymous memory (/proc/self/statm: resident less file-backed), read cheaply."""
    try:
        fields = Path("/proc/self/statm").read_text().split()
        return (int(fields[1]) - int(fields[2])) * PAGE_SIZE
    except (OSError, ValueError, IndexError):
        return 0


class Collapsing:
    """Collapses a process's memory (`collapse`) before a fork once it has grown by a huge page since the last time:
    the template after what it built (before its first fork: after its 16th, spares sharing its pages, one held 2
    MiB in huge pages where it holds ~20 this way), then after each lab's clients it builds; never again for pages
    it only writes (a write copies one small page out of a huge one; the rest stays whole). `enabled` False: never (a
    collapse costs 9-45 ms once and saves ~1 ms per fork and exit, a loss for a template that forks once)."""

    def __init__(self, enabled: bool = True) -> None:
        self.collapsed_at = 0  # the process's anonymous memory when it last collapsed it (0: never)
        self.size = huge_page_size() if enabled else 0

    def before_fork(self) -> None:
        if self.size and anonymous_bytes() - self.collapsed_at >= self.size:
            collapse()
            self.collapsed_at = anonymous_bytes()


def _say_unavailable(reason: str) -> None:
    if not _unavailable:
        _unavailable.append(reason)
        logging.getLogger(__name__).debug("no huge pages for the template's memory: %s", reason)
