"""The root an evaluation process enters (harness/sandbox/confine.py), built for real in a throw-away child."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

import pytest

from harness.sandbox import kernel
from harness.sandbox.confine import RootBuilder, interpreter_paths
from harness.sandbox.template import _try_in_child

pytestmark = pytest.mark.process


def test_a_root_can_hold_paths_under_tmp(tmp_path: Path) -> None:
    """A checkout (or a lab) under /tmp: the root's own /tmp is made where binds made it already (a sandbox that
    failed to build there degraded `stepeval run` and refused `stepeval serve`)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (mount namespaces)")
    lab = tmp_path / "lab" / "evaluation"
    lab.mkdir(parents=True)
    (lab / "marker").write_text("here")
    where = tempfile.mkdtemp(prefix="stepeval-test-root-")

    def build() -> None:
        kernel.unshare(kernel.CLONE_NEWNS | kernel.CLONE_NEWUTS)
        root = RootBuilder(where)
        root.prepare([*interpreter_paths(), str(tmp_path)])
        root.enter([str(lab)])
        if (lab / "marker").read_text() != "here":
            raise AssertionError("the bound lab is not readable inside")

    try:
        assert _try_in_child(build)
    finally:
        os.rmdir(where)


def test_a_root_without_landlock_has_its_sysctls_read_only() -> None:
    """The settings of the IPC, UTS and network namespaces evaluations share are no channel between them where
    Landlock (which refuses every write there) is off: /proc/sys is read-only, even to root."""
    if os.geteuid() != 0:
        pytest.skip("needs root (mount namespaces)")
    where = tempfile.mkdtemp(prefix="stepeval-test-root-")

    def build(read_only: bool) -> None:
        kernel.unshare(kernel.CLONE_NEWNS | kernel.CLONE_NEWUTS)
        root = RootBuilder(where)
        root.prepare(interpreter_paths(), sysctls_read_only=read_only)
        root.enter([])
        try:
            Path("/proc/sys/kernel/hostname").write_text("owned")
        except OSError as error:
            if error.errno == errno.EROFS:
                return
            raise
        raise OSError("written")

    try:
        assert _try_in_child(lambda: build(read_only=True))
        assert not _try_in_child(lambda: build(read_only=False))  # else the refusal above proves nothing
    finally:
        os.rmdir(where)
