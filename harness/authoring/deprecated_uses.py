"""Deprecated names (moved or renamed) a lab's files use, found by reading them (Python's ast; nothing is executed).

The runtime warning is only seen where the name is looked up in a process that shows it: not in the confined
worker that imports evaluation modules, nor inside a function no test calls. This read sees every use: `from
harness.recorder import RULES`, `import harness.recorder`, `from harness import recorder` then `recorder.Rule`,
`from harness.kit import grants` then `grants.Finding`, anywhere in the file (docs/user.md, "The public API").
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from harness.authoring.moved import DEPRECATED_NAMES, MOVED_NAMES, moved_warning
from harness.authoring.prestart import SCENARIO_DIR, SOLUTION_DIR
from harness.core.paths import MODULE_DIR

LAB_SOURCE_DIRS = (MODULE_DIR.parent, SOLUTION_DIR.parent, Path(SCENARIO_DIR))  # evaluation/, solution/, scenarios/


@dataclass(frozen=True, order=True)
class DeprecatedUse:
    """One use of a moved name: where, and what its author is told (the runtime warning's words)."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def lab_deprecated_uses(root: Path, folders: Iterable[Path] = LAB_SOURCE_DIRS) -> list[DeprecatedUse]:
    """Every use of a moved name in the lab's evaluation/, solution/ and scenarios/ files (or those under
    `folders`, relative to `root`), in file and line order; a file that does not parse is left to the commands that
    report syntax errors."""
    paths = sorted({p for folder in folders if (root / folder).is_dir() for p in (root / folder).rglob("*.py")})
    return [use for path in paths for use in deprecated_uses(path)]


def deprecated_uses(path: Path) -> list[DeprecatedUse]:
    """The moved names one file uses, one per name and line (nothing for a file that cannot be read or parsed)."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return []
    finder = _Finder()
    finder.visit(tree)
    return sorted({DeprecatedUse(path, line, message) for line, message in finder.found})


class _Finder(ast.NodeVisitor):
    """Collects (line, message) for each import of a moved module, and each deprecated name (DEPRECATED_NAMES:
    moved or renamed) imported from its module or read through the module's binding."""

    def __init__(self) -> None:
        self.found: list[tuple[int, str]] = []
        self.modules: dict[str, str] = {}  # a local name bound to a module with deprecated names -> the module

    def _name(self, line: int, module: str, name: str) -> None:
        if name in DEPRECATED_NAMES[module]:
            self.found.append((line, moved_warning(module, name)))

    def _module(self, line: int, module: str) -> None:
        """A module with deprecated names is bound: the import itself is a deprecated use if the module moved."""
        if module in MOVED_NAMES:
            home = sorted({home for home, _ in MOVED_NAMES[module].values()})[0]
            self.found.append((line, f"{module} is deprecated: import from {home} (docs/user.md, 'The public API')"))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module in DEPRECATED_NAMES:
            for alias in node.names:
                if alias.name == "*":
                    self._module(node.lineno, node.module)
                else:
                    self._name(node.lineno, node.module, alias.name)
        elif node.level == 0 and node.module is not None:
            for alias in node.names:
                module = f"{node.module}.{alias.name}"
                if module in DEPRECATED_NAMES:
                    self.modules[alias.asname or alias.name] = module
                    self._module(node.lineno, module)
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name in DEPRECATED_NAMES:
                if alias.asname:
                    self.modules[alias.asname] = alias.name  # else its names are read as harness.recorder.X
                self._module(node.lineno, alias.name)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        module = self._dotted(node.value)
        if module in DEPRECATED_NAMES:
            self._name(node.lineno, module, node.attr)
        self.generic_visit(node)

    def _dotted(self, node: ast.expr) -> str | None:
        return dotted(node, self.modules)


def dotted(node: ast.expr, modules: dict[str, str]) -> str | None:
    """The dotted module name an expression reads, its first name read through `modules` (local name -> module:
    `recorder` bound to harness.recorder; `harness.kit.grants` as it is); None if it is not a chain of names."""
    if isinstance(node, ast.Name):
        return modules.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        base = dotted(node.value, modules)
        return None if base is None else f"{base}.{node.attr}"
    return None
