"""What an acting thread prints goes to stderr; the other threads' prints stay on stdout, however the threads
interleave."""

from __future__ import annotations

import io
import sys
import threading

import pytest

from harness.authoring.output import prints_to_stderr


def test_acting_threads_print_to_stderr_and_the_others_to_stdout(monkeypatch: pytest.MonkeyPatch) -> None:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    inside = threading.Barrier(3)
    leave = threading.Event()

    def lane(name: str, last: bool) -> None:
        with prints_to_stderr():
            print(f"{name} acting")
            inside.wait()
            if not last:
                leave.wait()  # the other lane leaves first: this one must still print to stderr
            print(f"{name} still acting")
        if last:
            leave.set()

    lanes = [threading.Thread(target=lane, args=(f"lane{i}", i == 1)) for i in range(2)]
    for thread in lanes:
        thread.start()
    inside.wait()
    print("the report")  # the main thread, while both lanes act
    for thread in lanes:
        thread.join()
    print("after")
    assert out.getvalue() == "the report\nafter\n"
    assert sorted(err.getvalue().splitlines()) == sorted(
        ["lane0 acting", "lane1 acting", "lane0 still acting", "lane1 still acting"]
    )
    assert sys.stdout is out  # restored once the last acting thread left
