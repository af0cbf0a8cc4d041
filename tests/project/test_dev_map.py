"""docs/dev.md is the maintainers' map: every path it names exists, every name it places in a module is defined
there, its layout names every module of harness/, and it lists every decision record. A map that drifts from the
code fails here."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from harness.kit.catalog import SERVICE_MODULES

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
HARNESS = ROOT / "harness"
MAP = (DOCS / "dev.md").read_text(encoding="utf-8")

FILE = re.compile(r"(?<![\w/.<{~:@-])((?:[\w.*-]+/)*[\w*-]+\.(?:py|md|yaml|yml|txt|toml|json|png|in))(?![\w/])")
FOLDER = re.compile(r"(?<![\w/.<{~:@-])((?:[\w.-]+/)+)(?![\w<{*])")
LINK = re.compile(r"\]\(([^)#\s]+)\)")
PLACED = re.compile(
    r"`((?:\w+/)*\w+)\.(?!(?:py|md|txt|yaml)`)([A-Za-z_]\w*)`"
)  # `kit/outputs.Finding`, `confine.Protections`
CODE_NAME = re.compile(r"^_?[A-Za-z]\w*(?:\.\w+)?$")
PART = re.compile(r"^  (\w+/|recorder\.py)\s+(.*)$")


def section(title: str) -> str:
    return MAP.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def located(name: str) -> list[Path]:
    """Where a name the map writes is: from the repository's root, from harness/ (`sandbox/pool.py`, as the map
    writes harness's parts) or from docs/; a bare file name (`wire.py`, after its folder was named) anywhere in
    harness/ or tests/; `*` as a glob."""
    bases = [ROOT, HARNESS, DOCS]
    found = [path for base in bases for path in base.glob(name.rstrip("/")) if path.exists()]
    if not found and "/" not in name.rstrip("/"):
        found = [*HARNESS.rglob(name), *(ROOT / "tests").rglob(name)]
    return found


def benchmarks() -> list[tuple[str, str]]:
    """The Benchmarks table: (command, results file) per row."""
    rows = [line.split(" | ") for line in section("Benchmarks").splitlines() if line.startswith("| `python")]
    return [(row[0].strip("|` "), row[-1].strip("|` ")) for row in rows]


def test_every_file_and_folder_the_map_names_exists() -> None:
    """build/ and a benchmark's results file are made by `make` (test_each_benchmark_writes_the_file_it_names)."""
    names = {m.group(1) for m in FILE.finditer(MAP)} | {m.group(1) for m in FOLDER.finditer(MAP)}
    made = {"build/", ".venv/"} | {results for _, results in benchmarks()}
    names = {name for name in names if not name.startswith(tuple(made)) and name not in made}
    assert len(names) > 100, "the map's paths are no longer read: the patterns above miss them"
    assert sorted(name for name in names if not located(name)) == [], "docs/dev.md names paths that do not exist"


def test_each_benchmark_writes_the_file_it_names() -> None:
    rows = benchmarks()
    assert len(rows) >= 10
    for command, results in rows:
        module = command.removeprefix("python -m ").split()[0]
        source = (ROOT / (f"{module.replace('.', '/')}.py" if "." in module else "bench/__main__.py")).read_text()
        stem = results.removesuffix(".txt")
        written = f'results_console(f"{stem.split("<")[0]}{{' if "<" in stem else f'results_console("{stem}"'
        assert written in source, (command, results)


def test_every_link_leads_somewhere() -> None:
    links = [link for link in LINK.findall(MAP) if "://" not in link]
    assert links, "no link read"
    assert [link for link in links if not (DOCS / link).exists()] == []


@cache
def definitions(path: Path) -> dict[str, set[str]]:
    """A module's top-level names (functions, classes, assignments), each with the names its class defines."""
    names: dict[str, set[str]] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names[node.name] = set()
        elif isinstance(node, ast.ClassDef):
            members = set()
            for member in node.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    members.add(member.name)
                elif isinstance(member, ast.AnnAssign) and isinstance(member.target, ast.Name):
                    members.add(member.target.id)
                elif isinstance(member, ast.Assign):
                    members |= {t.id for t in member.targets if isinstance(t, ast.Name)}
            names[node.name] = members
        elif isinstance(node, ast.Assign):
            names |= {t.id: set() for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = set()
    return names


def defined_in(name: str, modules: list[Path]) -> bool:
    """`name` (or `Class.member`) is defined in one of `modules`."""
    head, _, member = name.partition(".")
    return any(head in definitions(m) and (not member or member in definitions(m)[head]) for m in modules)


def modules_named(module: str) -> list[Path]:
    """The harness modules `kit/outputs` or `confine` names (a bare name: any module of that name)."""
    if "/" in module:
        return [path for path in [HARNESS / f"{module}.py"] if path.exists()]
    return sorted(HARNESS.rglob(f"{module}.py"))


def test_every_name_the_map_places_in_a_module_is_defined_there() -> None:
    placed = [(module, name) for module, name in PLACED.findall(MAP) if modules_named(module)]
    assert len(placed) > 10, "no `module.Name` read"
    assert [f"{m}.{n}" for m, n in placed if not defined_in(n, modules_named(m))] == []


def glossary_rows() -> list[tuple[str, str, str]]:
    rows = [
        line.split(" | ") for line in section("Glossary").splitlines() if line.startswith("| ") and "---" not in line
    ]
    return [(word.removeprefix("| "), means, where.removesuffix(" |")) for word, means, where in rows[1:]]


def test_each_glossary_word_s_code_names_are_defined_where_it_says() -> None:
    """A code name the row writes (`Seat`, `KINDS`, `Kind.settling`; in its files' column also `serve_one`) is
    defined in one of its files (a lower-case word in its meaning may be a field or a value: `failure_context`)."""
    rows = glossary_rows()
    assert len(rows) > 30
    wrong = []
    for word, means, where in rows:
        files = [path for name in FILE.findall(where) for path in located(name) if path.suffix == ".py"]
        files += [path for name in FOLDER.findall(where) for path in (HARNESS / name).rglob("*.py")]
        assert files, f"glossary: {word!r} names no module"
        spans = [(span, False) for span in re.findall(r"`([^`]+)`", means)]
        spans += [(span, True) for span in re.findall(r"`([^`]+)`", where)]
        for span, in_files in spans:
            shaped = span != span.lower() or span.startswith("_") or "." in span or (in_files and "_" in span)
            if CODE_NAME.fullmatch(span) and not FILE.fullmatch(span) and shaped and not defined_in(span, files):
                wrong.append(f"{word}: {span}")
    assert wrong == []


def test_the_layout_names_every_module_of_harness() -> None:
    block = section("Layout").split("```", 2)[1]
    parts: dict[str, str] = {}
    current = None
    for line in block.splitlines():
        if (start := PART.match(line)) is not None:
            current = start.group(1) if start.group(1).endswith("/") else "."
            parts[current] = start.group(2) if current != "." else line
        elif current is not None and line.startswith("               "):
            parts[current] += " " + line.strip()
        else:
            current = None
    assert {"commands/", "service/", "authoring/", "store/", "sandbox/", "inside/", "core/", "kit/", "_compat/"} <= set(
        parts
    )
    unnamed = []
    for part, text in parts.items():
        words = set(re.findall(r"[\w.]+", text))
        folder = HARNESS / part
        modules = folder.glob("*.py") if part == "." else folder.rglob("*.py")
        for module in modules:
            if part == "kit/" and module.stem in SERVICE_MODULES:
                continue  # "one module per AWS service"
            folders = set(module.relative_to(folder).parent.parts)  # a folder named (`migrations/`) names its own
            if module.stem != "__init__" and not ({module.stem, module.name} | folders) & words:
                unnamed.append(str(module.relative_to(HARNESS)))
    assert sorted(unnamed) == [], "docs/dev.md's Layout does not name these modules"


def test_every_decision_record_is_listed() -> None:
    records = sorted(path.relative_to(DOCS).as_posix() for path in (DOCS / "decisions").glob("*.md"))
    assert records, "no decision record found"
    assert [record for record in records if f"]({record})" not in section("Decisions")] == []
