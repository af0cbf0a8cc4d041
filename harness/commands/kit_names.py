"""Names read from the kit's modules that do not exist (`s3.versioning_on` for `s3.versioning`), found by reading a
lab file (Python's ast) and looking each name up in the kit module it reads: a typo would otherwise load, lint
clean and fail only when the step is judged (an `exception` the learner cannot fix)."""

from __future__ import annotations

import ast
import difflib
import importlib
import importlib.util
from functools import cache
from types import ModuleType

from harness.authoring.deprecated_uses import dotted
from harness.kit.renamed import RENAMED

KIT = "harness.kit"


def missing_kit_names(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, message) for each name imported from, or read through, a kit module that the module lacks, with the
    closest name it has."""
    finder = _Finder()
    finder.visit(tree)
    return finder.found


def _is_kit_module(name: str) -> bool:
    return (name == KIT or name.startswith(f"{KIT}.")) and _module(name) is not None


@cache
def _module(name: str) -> ModuleType | None:
    """The kit module `name`, imported (the kit is the project's own code), None if there is none."""
    try:
        return importlib.import_module(name) if importlib.util.find_spec(name) is not None else None
    except ImportError:
        return None


def _has(module: str, name: str) -> bool:
    """`module` defines `name`, answers it as a renamed name, or has a submodule of that name (no import of the
    name itself: a renamed name would warn)."""
    found = _module(module)
    return found is not None and (
        name in vars(found) or name in RENAMED.get(module, {}) or _is_kit_module(f"{module}.{name}")
    )


def _closest(module: str, name: str) -> str:
    found = _module(module)
    names = [n for n in vars(found) if not n.startswith("_")] if found is not None else []
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return f" (did you mean {module.removeprefix('harness.')}.{close[0]}?)" if close else ""


class _Finder(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: list[tuple[int, str]] = []
        self.modules: dict[str, str] = {}  # a local name bound to a kit module -> the module

    def _check(self, line: int, module: str, name: str) -> None:
        if not _has(module, name):
            shown = module.removeprefix("harness.")
            self.found.append((line, f"{shown}.{name} does not exist in {module}{_closest(module, name)}"))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname and _is_kit_module(alias.name):
                self.modules[alias.asname] = alias.name  # else it is read as harness.kit.x.name

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level != 0 or node.module is None or not _is_kit_module(node.module):
            return
        for alias in node.names:
            if alias.name == "*":
                continue
            if _is_kit_module(f"{node.module}.{alias.name}"):
                self.modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            else:
                self._check(node.lineno, node.module, alias.name)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        module = self._dotted(node.value)
        if module is not None and _is_kit_module(module):
            self._check(node.lineno, module, node.attr)
            return  # the chain below names modules, each checked as part of `module`
        self.generic_visit(node)

    def _dotted(self, node: ast.expr) -> str | None:
        """The dotted module name an expression reads (`s3`, bound to harness.kit.s3; `harness.kit.s3`)."""
        return dotted(node, self.modules)
