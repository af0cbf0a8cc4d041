"""The service's default capacity is sized by the machine (memory per evaluation, cores), never a small fixed count;
what is configured is kept; the PSS of a template's children is read where the kernel lets us."""

from __future__ import annotations

import os
import signal

import pytest

from harness.sandbox.capacity import (
    EVALUATION_MIB,
    MAX_WORKERS,
    MEMORY_SHARE,
    MIN_WORKERS,
    PER_CPU,
    available_memory_mib,
    measured_mib,
    plan,
)


def test_the_default_is_what_the_cores_drive_when_memory_allows_more() -> None:
    capacity = plan(None, None, memory_mib=64_000, cpus=2)
    assert capacity.workers == PER_CPU * 2 and capacity.basis == "cpu"
    assert capacity.queue == capacity.workers and capacity.limit == 2 * capacity.workers


def test_the_default_is_what_memory_allows_when_it_allows_less() -> None:
    capacity = plan(None, None, memory_mib=600, cpus=8)
    assert capacity.workers == int(600 * MEMORY_SHARE) // EVALUATION_MIB and capacity.basis == "memory"


@pytest.mark.parametrize(("memory_mib", "cpus", "workers"), [(10, 1, MIN_WORKERS), (10**7, 64, MAX_WORKERS)])
def test_the_default_stays_within_its_bounds(memory_mib: int, cpus: int, workers: int) -> None:
    assert plan(None, None, memory_mib=memory_mib, cpus=cpus).workers == workers


def test_what_is_configured_is_kept() -> None:
    capacity = plan(3, 0, memory_mib=64_000, cpus=2)
    assert (capacity.workers, capacity.queue, capacity.limit, capacity.basis) == (3, 0, 3, "set")
    assert capacity.describe()["sized_by"] == "set"


def test_this_machine_is_sized_above_the_old_default_of_four() -> None:
    memory = available_memory_mib()
    assert memory is None or memory > 0
    assert plan(None, None).workers >= MIN_WORKERS


@pytest.mark.process
def test_measured_reads_the_pss_of_a_process_children() -> None:
    child = os.fork()
    if child == 0:  # pragma: no cover - the child only waits to be measured
        signal.pause()
        os._exit(0)
    try:
        mib = measured_mib(os.getpid())
        assert mib is not None and 0 < mib < 1024
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    assert measured_mib(2**22 + 12345) is None  # no such process: nothing measured, no error
