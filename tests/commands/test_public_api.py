"""Every `harness` name docs/user.md shows a lab author imports: the page's `from harness... import ...` lines (in
its Python blocks and in inline code) and its dotted `harness.x.y` names, read from the page so that they cannot
drift apart. A name the page teaches that stops importing fails here, before a lab finds out."""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import pytest

USER_DOC = Path(__file__).parents[2] / "docs" / "user.md"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
FROM_IMPORT = re.compile(r"^\s*from (harness(?:\.\w+)*) import ([\w, ]+?)\s*(?:#.*)?$", re.M)
IMPORT = re.compile(r"^\s*import (harness(?:\.\w+)*)\s*(?:#.*)?$", re.M)
INLINE = re.compile(r"`([^`\n]+)`")
DOTTED = re.compile(r"(harness(?:\.\w+)+)(?:\(.*\))?")
KIT_MODULE = re.compile(r"^#### `kit\.(\w+)`", re.M)  # "The kit's modules": one heading per module


def shown_names(text: str) -> set[str]:
    """Each dotted name the page shows: `module.name` for an import of a name, `module` for a module."""
    names: set[str] = set()
    code = [block.group(1) for block in PYTHON_BLOCK.finditer(text)]
    inline = [span.group(1) for span in INLINE.finditer(PYTHON_BLOCK.sub("", text))]
    for chunk in [*code, *inline]:
        for found in FROM_IMPORT.finditer(chunk):
            names |= {f"{found.group(1)}.{name.split(' as ')[0].strip()}" for name in found.group(2).split(",")}
        names |= {found.group(1) for found in IMPORT.finditer(chunk)}
    names |= {found.group(1) for span in inline if (found := DOTTED.fullmatch(span))}
    names |= {f"harness.kit.{found.group(1)}" for found in KIT_MODULE.finditer(text)}
    return names


def resolve(dotted: str) -> object:
    """The object a dotted name means: the longest importable module, then attributes; ImportError or
    AttributeError if the name is not there."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        return value
    raise ImportError(dotted)


PAGE = USER_DOC.read_text(encoding="utf-8")
MOVED_TABLE = PAGE.split("(kept through", 1)[1].split("\n\n")[1]  # last release's names: they warn
NAMES = sorted(shown_names(PAGE.replace(MOVED_TABLE, "")))


def test_the_page_is_read() -> None:
    """The parse finds what the page teaches (a parse that found nothing would pass everything below)."""
    assert {
        "harness.kit.s3",
        "harness.kit.step.Step",
        "harness.kit.require.require",
        "harness.kit.kinds.Kind",
        "harness.authoring.scenarios.mistake",
        "harness.authoring.scenarios.solve",
        "harness.authoring.scenarios.equivalent",
        "harness.authoring.events.EventRule",
        "harness.authoring.solution_player.play_solution",
        "harness.sandbox.faults.inject_error",
        "harness.kit.aws.is_not_found",
        "harness.kit.apigateway",
        "harness.kit.numbers",
    } <= set(NAMES)
    assert not {"harness.recorder", "harness.scenarios", "harness.recorder.Rule"} & set(NAMES)  # the moved table's


@pytest.mark.parametrize("dotted", NAMES)
def test_every_name_the_page_shows_imports_without_a_warning(dotted: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the page teaches no deprecated name
        value = resolve(dotted)
    assert value is not None


def test_the_moved_names_the_page_lists_still_answer_with_a_warning_naming_their_home() -> None:
    rows = re.findall(r"^\| `(harness[\w.]*)`[^|]*\| `(harness[\w.]*)` \|$", MOVED_TABLE, re.M)
    assert len(rows) == 5, MOVED_TABLE  # two moved modules, a renamed class of one, two renamed kit classes
    for old, new in rows:
        try:
            module = importlib.import_module(old)
        except ModuleNotFoundError:  # a renamed name: harness.recorder.Rule
            with pytest.warns(DeprecationWarning, match=re.escape(new)):
                assert resolve(old) is resolve(new)
            continue
        name = module.__all__[0]
        with pytest.warns(DeprecationWarning, match=re.escape(f"{new}.{name}")):
            assert getattr(module, name) is getattr(importlib.import_module(new), name)
