"""The address space the memory limit starts from is the process's VmSize, as /proc/self/status says it."""

from __future__ import annotations

from harness.core.limits import address_space_now


def vm_size() -> int:
    with open("/proc/self/status", "rb") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith(b"VmSize:"))


def test_the_address_space_is_vmsize() -> None:
    big = bytearray(64 * 1024 * 1024)  # mapped now: the figure moves with the process
    before, now, after = vm_size(), address_space_now(), vm_size()
    assert min(before, after) <= now <= max(before, after)
    assert now >= len(big)
