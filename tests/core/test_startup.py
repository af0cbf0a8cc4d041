"""A process's start: no cyclic collection during its imports, what they built frozen after."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from harness.core.startup import collections_paused


@pytest.fixture(autouse=True)
def _collector_as_it_was() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    (gc.enable if enabled else gc.disable)()


def test_no_collection_runs_inside_and_what_was_built_is_frozen_after() -> None:
    gc.enable()
    gc.unfreeze()
    runs: list[str] = []
    gc.callbacks.append(lambda phase, _: runs.append(phase))
    try:
        with collections_paused():
            assert not gc.isenabled()
            built = [[index] for index in range(50_000)]  # past every generation's threshold
            assert runs == []
        assert gc.isenabled() and gc.get_freeze_count() >= len(built)
    finally:
        gc.callbacks.pop()


def test_a_collector_turned_off_before_stays_off_and_an_error_still_leaves() -> None:
    gc.disable()
    with pytest.raises(ValueError), collections_paused():
        raise ValueError("boom")
    assert not gc.isenabled()
    gc.enable()
    with pytest.raises(ValueError), collections_paused():
        raise ValueError("boom")
    assert gc.isenabled()
