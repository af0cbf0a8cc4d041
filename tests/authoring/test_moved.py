"""Modules moved into a subpackage still import by their old names, as the same module, with a DeprecationWarning
naming the new one."""

from __future__ import annotations

import importlib
import sys

import pytest

MOVED = {
    "harness.authoring.drafting": "harness.authoring.drafts.drafting",
    "harness.authoring.draft_baselines": "harness.authoring.drafts.baselines",
    "harness.authoring.draft_probes": "harness.authoring.drafts.probes",
    "harness.authoring.draft_refs": "harness.authoring.drafts.refs",
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_name_is_the_moved_module_with_a_warning(old: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {MOVED[old]}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert sys.modules[old] is module


def test_names_import_from_an_old_path() -> None:
    with pytest.warns(DeprecationWarning):
        sys.modules.pop("harness.authoring.drafting", None)
        from harness.authoring.drafting import HEADER, draft
    from harness.authoring.drafts.drafting import HEADER as moved_header

    assert HEADER is moved_header
    assert callable(draft)
