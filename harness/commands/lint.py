"""`stepeval lint`: a static read of every step module and reference solution (Python's ast; nothing is executed).

Catches before anything runs what the harness would otherwise refuse or time out on: mutating AWS calls,
clients made without the handed session, a `run` of the wrong shape, handle names the step does not have,
blocking sleeps inside async code, a kit name that does not exist (`s3.versioning_on`). A solution
(`solution/boto3/`) may write, but imports only what the platform allows: boto3,
`botocore.exceptions.ClientError` and the standard library.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

from harness.authoring.module_head import DRAFT_MARK
from harness.authoring.prestart import SCENARIO_DIR, SOLUTION_STEM, solution_paths
from harness.commands.kit_names import missing_kit_names
from harness.commands.scaffold import ISSUE_TODO, REQUIREMENTS_TODO, SOLUTION_TODO
from harness.core.lab import Lab, StepSpec
from harness.core.paths import MODULE_DIR
from harness.inside.loader import LIB_NAME, RUN_PARAMETERS

MUTATING_PREFIXES = (
    "create_",
    "delete_",
    "put_",
    "modify_",
    "update_",
    "attach_",
    "detach_",
    "authorize_",
    "revoke_",
    "associate_",
    "disassociate_",
    "allocate_",
    "release_",
    "terminate_",
    "reboot_",
    "start_",
    "stop_",
    "register_",
    "deregister_",
    "enable_",
    "disable_",
    "replace_",
    "restore_",
    "copy_",
    "upload_",
    "tag_",
    "untag_",
    "run_",
    "send_",
    "publish_",
    "import_",
    "reset_",
    "purge_",
    "receive_",
)
MUTATING_NAMES = frozenset(
    {
        "delete",
        "terminate",
        "stop",
        "start",
        "reboot",
        "put",
        "upload_file",
        "copy_from",
        "invoke",
        "assume_role",
        "get_session_token",
        "get_federation_token",
    }
)
SESSION_FACTORIES = frozenset({"client", "resource", "Session"})
IGNORE_MARK = "# stepeval: ignore"  # on a line lint flags wrongly (a method of another library named put_*...)
HANDLE_LITERAL = re.compile(r"[0-9]{2}_[0-9]{2}_[A-Za-z0-9_]+")
SOLUTION_IMPORTS = "a solution imports only boto3, botocore.exceptions.ClientError and the standard library"


@dataclass(frozen=True, order=True)
class LintProblem:
    """One finding, located."""

    path: Path
    line: int
    step: str
    message: str

    def __str__(self) -> str:
        where = f"step {self.step}" if self.step != LIB_NAME else "the lab's shared helpers"
        return f"{self.path}:{self.line}: {where}: {self.message}"


def lint_lab(lab: Lab) -> list[LintProblem]:
    """Every finding in every step module that exists (missing modules are `stepeval check`'s to report), in
    the lab's shared helpers (`evaluation/boto3/_lib/`), its reference solutions and its scenarios."""
    problems: list[LintProblem] = lint_lib(lab) + lint_solutions(lab) + lint_scenarios(lab)
    for step in lab.steps.values():
        if step.module_path.is_file():
            problems.extend(lint_module(step))
    return sorted(problems)


def lint_solutions(lab: Lab) -> list[LintProblem]:
    """The findings in the lab's solutions: a name that is no step's, what they import, their `run`."""
    problems = []
    for path in solution_paths(lab.root):
        match = SOLUTION_STEM.fullmatch(path.stem)
        key = match["key"].replace("_", ".") if match else path.stem
        if key not in lab.steps:
            problems.append(
                LintProblem(path, 1, key, "not named after a step of this lab (NN_NN.py or NN_NN_variant.py)")
            )
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except SyntaxError as error:
            problems.append(LintProblem(path, error.lineno or 1, key, f"SyntaxError: {error.msg}"))
            continue
        problems += [LintProblem(path, line, key, message) for line, message in _solution_findings(tree)]
        problems += [
            LintProblem(
                path, node.lineno, key, "unwritten: the solution still returns stepeval new's placeholder error"
            )
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value == SOLUTION_TODO
        ]
    return problems


def lint_scenarios(lab: Lab) -> list[LintProblem]:
    """What `stepeval new` left unwritten in the lab's scenarios (`scenarios/NN_NN.py`): a solve or mistake that
    still raises NotImplementedError, a mistake whose issue is still the placeholder; a kit name that does not
    exist. The files are not run."""
    problems = []
    directory = lab.root / SCENARIO_DIR
    for path in sorted(directory.glob("[!_]*.py")) if directory.is_dir() else []:
        key = path.stem.replace("_", ".")
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except SyntaxError as error:
            problems.append(LintProblem(path, error.lineno or 1, key, f"SyntaxError: {error.msg}"))
            continue
        problems += [LintProblem(path, line, key, message) for line, message in missing_kit_names(tree)]
        for function in tree.body:
            if isinstance(function, ast.FunctionDef) and (kind := _scenario_kind(function)):
                problems += [LintProblem(path, line, key, message) for line, message in _unwritten(function, kind)]
    return problems


def _scenario_kind(function: ast.FunctionDef) -> str | None:
    """`solve` or `mistake` when the function is marked so (`@solve`, `@mistake(...)`, `@scenarios.mistake`)."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
        if name in ("solve", "mistake"):
            return name
    return None


def _unwritten(function: ast.FunctionDef, kind: str) -> list[tuple[int, str]]:
    """One (line, message) if the scenario is still a skeleton: it raises NotImplementedError, or its issue is
    the placeholder `stepeval new` wrote."""
    for node in ast.walk(function):
        if isinstance(node, ast.Raise) and node.exc is not None:
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(raised, ast.Name) and raised.id == "NotImplementedError":
                return [(node.lineno, f"unwritten: {kind} {function.name} still raises NotImplementedError")]
    for decorator in function.decorator_list:
        for node in ast.walk(decorator):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and ISSUE_TODO in node.value:
                return [(decorator.lineno, f"unwritten: {kind} {function.name}'s issue is still the placeholder")]
    return []


def _solution_findings(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, message) for each import a solution may not make, and for a missing or misshapen `run`."""
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names if not _allowed_import(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            names = [
                f"{module}.{alias.name}" if module != "botocore.exceptions" else f"botocore.exceptions.{alias.name}"
                for alias in node.names
                if not (node.level == 0 and _allowed_import(node.module or "", alias.name))
            ]
        else:
            continue
        found += [(node.lineno, f"imports {name}: {SOLUTION_IMPORTS}") for name in names]
    runs = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == "run"]
    if not runs:
        found.append((1, "defines no run(); expected async def run(session, context, logger)"))
    for run in runs:
        parameters = tuple(a.arg for a in run.args.posonlyargs + run.args.args)
        if isinstance(run, ast.FunctionDef) or parameters != RUN_PARAMETERS:
            found.append(
                (run.lineno, f"run({', '.join(parameters)}) should be async def run(session, context, logger)")
            )
    return found


def _allowed_import(module: str, name: str | None = None) -> bool:
    """boto3 (and its modules), `botocore.exceptions.ClientError`, the standard library."""
    top = module.split(".")[0]
    if top == "boto3" or (top in sys.stdlib_module_names and top != "__future__") or module == "__future__":
        return True
    return module == "botocore.exceptions" and name == "ClientError"


def lint_module(step: StepSpec) -> list[LintProblem]:
    """The findings in one step's module."""
    return _lint(step.module_path, step.key, set(step.output_types) | set(step.input_types), needs_run=True)


def lint_lib(lab: Lab) -> list[LintProblem]:
    """The findings in the lab's shared helpers: the same rules as a module's, but no `run` and any handle name."""
    lib_dir = lab.root / MODULE_DIR / LIB_NAME
    return [p for path in sorted(lib_dir.rglob("*.py")) for p in _lint(path, LIB_NAME, None, needs_run=False)]


def _lint(path: Path, key: str, handles: set[str] | None, *, needs_run: bool) -> list[LintProblem]:
    source = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as error:
        return [LintProblem(path, error.lineno or 1, key, f"SyntaxError: {error.msg}")]
    visitor = _Visitor(path, key, handles, tied_outputs(tree))
    visitor.visit(tree)
    for number, message in missing_kit_names(tree):
        visitor.report(number, message)
    if needs_run and not visitor.saw_run:
        visitor.report(1, "defines no run(); expected async def run(session, context, logger)")
    if needs_run and source.startswith(DRAFT_MARK):
        visitor.report(
            1, "still the unread draft `stepeval new --from-solution` wrote: prune it, delete its DRAFT comment"
        )
    lines = source.splitlines()
    for number, line in enumerate(lines, 1):
        if REQUIREMENTS_TODO in line and not any(start <= number <= end for start, end in visitor.empty_lists):
            visitor.report(number, "unwritten: stepeval new's TODO is still here")
    return [p for p in visitor.problems if not (p.line <= len(lines) and IGNORE_MARK in lines[p.line - 1])]


def tied_outputs(tree: ast.AST) -> set[str]:
    """The outputs another requirement refers to (`step.output("X")`, or a name the find of X was assigned to and
    read again): their requirements may all be elsewhere (`sqs.dead_letter_queue(dlq)` ties the dead-letter queue)."""
    tied: set[str] = set()
    assigned: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            first = node.args[0]
            named = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
            if node.func.attr == "output" and named:
                tied.add(named)
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr == "find"
            and node.value.args
            and isinstance(node.value.args[0], ast.Constant)
            and isinstance(node.value.args[0].value, str)
        ):
            assigned[node.targets[0].id] = node.value.args[0].value
    loads = [node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)]
    return tied | {output for variable, output in assigned.items() if variable in loads}


class _Visitor(ast.NodeVisitor):
    def __init__(self, path: Path, key: str, handles: set[str] | None, tied: AbstractSet[str] = frozenset()) -> None:
        self.path = path
        self.key = key
        self.handles = handles  # None: any handle name may appear (shared helpers)
        self.tied = tied  # outputs another requirement refers to
        self.problems: list[LintProblem] = []
        self.empty_lists: list[tuple[int, int]] = []  # the lines of each empty requirement list reported
        self.saw_run = False
        self._boto3_names = {"boto3"}
        self._sleep_names: set[str] = set()
        self._time_modules = {"time"}

    def report(self, line: int, message: str) -> None:
        self.problems.append(LintProblem(self.path, line, self.key, message))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == "boto3":
                self._boto3_names.add(alias.asname or "boto3")
            if alias.name == "time":
                self._time_modules.add(alias.asname or "time")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if node.module in ("boto3", "boto3.session") and alias.name in SESSION_FACTORIES:
                self._boto3_names.add(alias.asname or alias.name)
            if node.module == "time" and alias.name == "sleep":
                self._sleep_names.add(alias.asname or "sleep")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node.name == "run" and node.col_offset == 0 and self.handles is not None:
            self.saw_run = True
            self.report(node.lineno, "run is not an async def; expected async def run(session, context, logger)")
        self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        if node.name == "run" and node.col_offset == 0 and self.handles is not None:
            self.saw_run = True
            arguments = node.args
            names = tuple(a.arg for a in arguments.posonlyargs + arguments.args)
            if names != RUN_PARAMETERS or arguments.vararg or arguments.kwarg or arguments.kwonlyargs:
                self.report(node.lineno, f"run({', '.join(names)}) should be run(session, context, logger)")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        function = node.func
        if isinstance(function, ast.Attribute):
            receiver = function.value
            if (
                isinstance(receiver, ast.Name)
                and receiver.id in self._boto3_names
                and function.attr in SESSION_FACTORIES
            ):
                self.report(
                    node.lineno,
                    f"{receiver.id}.{function.attr}() makes a client without the handed "
                    "session (it has no credentials there): use session.client(...)",
                )
            elif isinstance(receiver, ast.Name) and receiver.id in self._time_modules and function.attr == "sleep":
                self.report(node.lineno, "time.sleep() blocks the worker: use await asyncio.sleep(...)")
            elif (
                function.attr == "todo"
                and node.args
                and isinstance(node.args[-1], ast.Constant)
                and isinstance(node.args[-1].value, str)
            ):
                self.report(node.lineno, f"unfinished: {node.args[-1].value}")
            elif function.attr in ("find", "find_all"):
                self._requirements(node, function.attr)
            elif function.attr.startswith(MUTATING_PREFIXES) or function.attr in MUTATING_NAMES:
                self.report(
                    node.lineno,
                    f"{function.attr}() changes AWS: evaluation code may only read (the harness refuses it)",
                )
        elif isinstance(function, ast.Name):
            if function.id in self._boto3_names - {"boto3"}:
                self.report(
                    node.lineno, f"{function.id}() makes a client without the handed session: use session.client(...)"
                )
            elif function.id in self._sleep_names:
                self.report(node.lineno, "sleep() blocks the worker: use await asyncio.sleep(...)")
        self.generic_visit(node)

    def _requirements(self, node: ast.Call, method: str) -> None:
        """An output found with no requirement at all: any resource of its kind passes (`stepeval new`'s skeleton
        until its TODO is written)."""
        if method == "find" and len(node.args) >= 3:
            kind, outputs = node.args[1], [(node.args[0], node.args[2])]
        elif method == "find_all" and len(node.args) >= 2 and isinstance(node.args[1], ast.Dict):
            # a `**spread` entry has no key: it names no output
            pairs = zip(node.args[1].keys, node.args[1].values, strict=True)
            kind, outputs = node.args[0], [(key, value) for key, value in pairs if key is not None]
        else:
            return
        for name, requirements in outputs:
            if (
                isinstance(name, ast.Constant)
                and isinstance(name.value, str)
                and isinstance(requirements, ast.List)
                and not requirements.elts
                and name.value not in self.tied
            ):
                self.empty_lists.append((requirements.lineno, requirements.end_lineno or requirements.lineno))
                self.report(
                    name.lineno,
                    f"unwritten: output {name.value} has no requirement (any {ast.unparse(kind)} would pass): write"
                    " the requirements the instruction states",
                )

    def visit_Constant(self, node: ast.Constant) -> None:
        if self.handles is None or not isinstance(node.value, str) or not HANDLE_LITERAL.fullmatch(node.value):
            return
        if node.value not in self.handles:
            self.report(node.lineno, f"handle {node.value!r} is neither an input nor an output of step {self.key}")
