"""The template's memory by huge pages (harness/sandbox/hugepages.py): on this machine's kernel where it allows it,
a no-op said once where it does not, and evaluations forked from such a template still judge as before."""

from __future__ import annotations

import logging
import os
import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.core.contract import ContextInput, Event
from harness.core.lab import load_lab
from harness.sandbox import hugepages, kernel
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner
from tests.conftest import LABS

pytestmark = [pytest.mark.process]

PR_SET_THP_DISABLE = 41
KPF_THP = 1 << 22  # /proc/kpageflags: the page is part of a transparent huge page (mapped whole or not)
MAPS = "\n".join(
    [
        "55d000000000-55d000a00000 rw-p 00000000 00:00 0                          [heap]",
        "7f0000100000-7f0000900000 rw-p 00000000 00:00 0",
        "7f0000900000-7f0000a00000 rw-p 00000000 00:00 0",
        "7f0000a00000-7f0000c00000 r--p 00000000 00:00 0",
        "7f0000c00000-7f0001000000 rw-s 00000000 00:05 42                         /dev/zero (deleted)",
        "7f0001000000-7f0001400000 rw-p 00000000 08:01 1234                       /usr/lib/libpython3.11.so.1.0",
        "7ffc00000000-7ffc00400000 rw-p 00000000 00:00 0                          [stack]",
    ]
)


def test_only_whole_huge_pages_of_private_writable_anonymous_memory_are_collapsible() -> None:
    size = 2 << 20
    assert hugepages.collapsible_ranges(MAPS, size) == [
        (0x55D000000000, 0xA00000),  # the heap, whole
        (0x7F0000200000, 0x600000),  # from its first huge page boundary to its last
    ]  # not: 1 MiB (an arena), read-only, shared, file-backed, the stack


def in_child(body: Callable[[], int]) -> int:
    """`body`'s result (0-255) from a forked child, so that what it does to its memory is its own."""
    pid = os.fork()
    if pid == 0:
        code = 255
        try:
            code = body()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def collapsed_mib() -> int:
    """In a child (`in_child`): the MiB this process holds in huge pages more after `collapse()` (at most 255)."""
    filler = [bytearray(4096) for _ in range(8 * 1024)]  # 32 MiB of small pages: whole huge pages among them
    before = hugepages.anonymous_huge_bytes()
    after = hugepages.collapse()
    return min(255, (after - before) >> 20) if len(filler) else 0


def test_a_process_holds_huge_pages_after_collapsing_where_the_kernel_allows_it() -> None:
    if not hugepages.huge_page_size():
        pytest.skip("transparent huge pages are `never` (or absent) on this machine: collapse() is a no-op")
    if kernel.libc().madvise(0, 0, hugepages.MADV_COLLAPSE) != 0:
        pytest.skip("this kernel has no MADV_COLLAPSE (Linux < 6.1): collapse() is a no-op")

    assert in_child(collapsed_mib) >= 4


def test_where_transparent_huge_pages_are_never_it_does_nothing_and_says_so_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "enabled").write_text("always madvise [never]\n")
    (tmp_path / "hpage_pmd_size").write_text("2097152\n")
    monkeypatch.setattr(hugepages, "THP", tmp_path)
    monkeypatch.setattr(hugepages, "_unavailable", [])
    calls: list[tuple[int, int, int]] = []
    monkeypatch.setattr(kernel, "madvise", lambda *args: calls.append(args))
    caplog.set_level(logging.DEBUG, logger=hugepages.__name__)
    assert hugepages.huge_page_size() == 0
    assert hugepages.collapse() == 0 and hugepages.collapse() == 0
    collapsing = hugepages.Collapsing()
    collapsing.before_fork()
    assert calls == [] and collapsing.collapsed_at == 0
    said = [record for record in caplog.records if record.name == hugepages.__name__]
    assert len(said) == 1 and said[0].levelno == logging.DEBUG and "never" in said[0].getMessage(), said


def test_where_the_kernel_refuses_it_to_the_process_it_stops_trying() -> None:
    """PR_SET_THP_DISABLE: the kernel answers MADV_COLLAPSE with EINVAL, as one before Linux 6.1 does."""
    if not hugepages.huge_page_size():
        pytest.skip("transparent huge pages are `never` (or absent) on this machine")

    def refused() -> int:
        kernel.prctl(PR_SET_THP_DISABLE, 1)
        if hugepages.collapse() != 0 or not hugepages._unavailable:
            return 1
        return 0 if "MADV_COLLAPSE refused" in hugepages._unavailable[0] else 2

    assert in_child(refused) == 0


def large_folio_bytes(pid: int) -> int:
    """The anonymous memory of process `pid` in huge pages, whether each is still mapped whole (AnonHugePages) or,
    once a write copied one of its small pages out, page by page (the kernel still forks and frees it in one go)."""
    page = hugepages.PAGE_SIZE
    total = 0
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap, open("/proc/kpageflags", "rb") as flags:
        for start, length in hugepages.collapsible_ranges(Path(f"/proc/{pid}/maps").read_text(), page):
            pagemap.seek(start // page * 8)
            for (entry,) in struct.iter_unpack("Q", pagemap.read(length // page * 8)):
                frame = entry & ((1 << 55) - 1)
                if entry >> 63 and frame:
                    flags.seek(frame * 8)
                    total += page if struct.unpack("Q", flags.read(8))[0] & KPF_THP else 0
    return total


def test_the_template_forks_evaluations_from_huge_pages_and_they_still_judge(sandbox, aws) -> None:
    if not hugepages.huge_page_size():
        pytest.skip("transparent huge pages are `never` (or absent) on this machine: the template keeps small pages")
    if os.geteuid() != 0:
        pytest.skip("the template's pages are visible to root only (it is not dumpable; /proc/kpageflags)")
    if kernel.libc().madvise(0, 0, hugepages.MADV_COLLAPSE) != 0:
        pytest.skip("this kernel has no MADV_COLLAPSE (Linux < 6.1): the template keeps small pages")
    aws.client("s3").create_bucket(Bucket="learner-bucket")
    context = ContextInput(events=[Event(type="AWS::S3::Bucket", id="learner-bucket")])
    with WorkerPool(2) as pool:
        runner = Runner(load_lab(LABS / "seed_examples"), pool)
        for _ in range(4):
            assert runner.evaluate("01.01", context, sandbox).status == "pass"
            assert runner.evaluate("01.01", ContextInput(), sandbox).status == "fail"
        assert pool._template is not None
        template = pool._template.process.pid
        held = large_folio_bytes(template)
    if held < 8 << 20 and in_child(collapsed_mib) < 4:  # a collapse needs free 2 MiB blocks, which a busy host may lack
        pytest.skip(f"the kernel gives no huge page to a collapse now (memory fragmented or short): {held} bytes held")
    assert held >= 8 << 20  # ~24 of its ~42 MiB on x86-64, wherever it ran


def test_a_process_collapses_before_its_first_fork_then_only_once_it_has_grown_and_never_where_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    collapses: list[int] = []
    memory = [40 << 20]
    monkeypatch.setattr(hugepages, "huge_page_size", lambda: 2 << 20)
    monkeypatch.setattr(hugepages, "anonymous_bytes", lambda: memory[0])
    monkeypatch.setattr(hugepages, "collapse", lambda: collapses.append(memory[0]) or 0)
    collapsing = hugepages.Collapsing()
    collapsing.before_fork()
    memory[0] += 1 << 20
    collapsing.before_fork()
    memory[0] += 1 << 20  # 2 MiB more than at the last collapse: a new lab's clients
    collapsing.before_fork()
    assert collapses == [40 << 20, 42 << 20]
    once = hugepages.Collapsing(enabled=False)  # a template that forks once (`stepeval run`)
    once.before_fork()
    assert collapses == [40 << 20, 42 << 20]


def test_a_pool_that_runs_one_evaluation_keeps_its_template_in_small_pages() -> None:
    """A collapse costs more than one fork and exit save; the flag reaches the template's command line."""
    with WorkerPool(1, one_evaluation=True) as pool:
        pool.start()
        assert pool._template is not None
        assert "--small-pages" in pool._template.process.args
    with WorkerPool(1) as pool:
        pool.start()
        assert pool._template is not None
        assert "--small-pages" not in pool._template.process.args
