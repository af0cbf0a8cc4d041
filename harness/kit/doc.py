"""The kit's reference in docs/user.md, written from the kit's own signatures and docstrings so it cannot drift.

    python -m harness.kit.doc docs/user.md      # rewrites the part between the markers

tests/kit/test_doc.py fails when the file and the code disagree.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.kit.catalog import SERVICE_MODULES
from harness.kit.kinds import Kind
from harness.kit.refs import Space

BEGIN = "<!-- kit reference: written by `python -m harness.kit.doc docs/user.md` from the code; do not edit -->"
END = "<!-- end of the kit reference -->"
HELPER_MODULES = (
    "net",
    "require",
    "refs",
    "access",
    "grants",
    "statements",
    "policy",
    "identity",
    "match",
    "numbers",
    "bounds",
    "schedules",
)


def markdown() -> str:
    """The markdown of every service module (its kinds and functions), then the helper modules."""
    parts = [BEGIN]
    for name in (*SERVICE_MODULES, *HELPER_MODULES):
        parts.append(_module(importlib.import_module(f"harness.kit.{name}")))
    parts.append(END)
    return "\n\n".join(parts) + "\n"


def _module(module: ModuleType) -> str:
    short = module.__name__.removeprefix("harness.")
    lines = [f"#### `{short}`: {_sentence(inspect.getdoc(module))}"]
    kinds = [(name, value) for name, value in vars(module).items() if isinstance(value, Kind) and name.isupper()]
    if kinds:
        lines.append("")
        lines.append("Kinds: " + "; ".join(_kind(name, kind) for name, kind in kinds) + ".")
        shapes = _attribute_docs(module)
        for name, _ in kinds:
            if name in shapes:
                lines.append("")
                lines.append(f"A requirement on `{name}` receives {_paragraph(shapes[name])}")
    spaces = [name for name, value in vars(module).items() if isinstance(value, Space)]
    if spaces:
        lines.append("")
        lines.append("Spaces: " + ", ".join(f"`{name}`" for name in spaces) + ".")
    lines.append("")
    lines.extend(
        f"- `{name}{_signature(function)}`: {_paragraph(inspect.getdoc(function))}"
        for name, function in _functions(module)
    )
    return "\n".join(lines)


def _kind(name: str, kind: Kind) -> str:
    shown = f"`{name}` {kind.type} ({kind.noun})"
    if kind.settling is not None:
        when = _paragraph(inspect.getdoc(kind.settling)).rstrip(".")
        shown += f", pending while {when} (ask again after {kind.retry_after_s} s)"
    return shown


@cache
def _attribute_docs(module: ModuleType) -> dict[str, str]:
    """The docstrings written under a module's assignments (`TRAIL = register(...)` then `\"\"\"...\"\"\"`): for a
    Kind, the shape of the resource its requirements receive."""
    tree = ast.parse(inspect.getsource(module))
    found = {}
    for statement, following in zip(tree.body, tree.body[1:], strict=False):
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            found[statement.targets[0].id] = inspect.cleandoc(following.value.value)
    return found


def _functions(module: ModuleType) -> list[tuple[str, Any]]:
    """The module's public functions and classes, defined there (not imported), in source order."""
    found = []
    for name, value in vars(module).items():
        target = inspect.unwrap(value) if callable(value) else value
        if name.startswith("_") or getattr(target, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(target) or (inspect.isclass(target) and not issubclass(target, Exception)):
            found.append((name, value))
    return sorted(found, key=lambda item: inspect.getsourcelines(inspect.unwrap(item[1]))[1])


def _signature(function: Any) -> str:
    """`(a, b=1, *, key='Arn')`: the parameters without annotations (a class: its constructor's)."""
    signature = inspect.signature(function)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()]
    return str(signature.replace(parameters=params, return_annotation=inspect.Signature.empty))


def _paragraph(doc: str | None) -> str:
    """A docstring's first paragraph on one line (what it does and what it accepts)."""
    return " ".join((doc or "").split("\n\n")[0].split()) or "(no docstring)"


def _sentence(doc: str | None) -> str:
    return _paragraph(doc).split(". ")[0].rstrip(".") + "."


def rewrite(path: Path) -> bool:
    """Put the reference between the markers of `path`; whether the file changed."""
    text = path.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    updated = text[:start] + markdown().rstrip("\n") + text[end:]
    if updated != text:
        path.write_text(updated, encoding="utf-8")
    return updated != text


if __name__ == "__main__":
    changed = rewrite(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/user.md"))
    print("rewritten" if changed else "up to date")
