"""Import a step module by path and check that it defines `async def run(session, context, logger)`.

A step module may import its lab's shared helpers, and only those, relatively: `from ._lib import fetchers`
(`evaluation/boto3/_lib/`, a package). Each lab directory gets a package of its own (`stepeval_labs.l<digest>`)
whose only importable child is `_lib`, so two labs' helpers never mix and `from . import other_step` fails.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.machinery
import importlib.util
import inspect
import os
import re
import sys
import traceback
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

from harness.core.paths import LIB_NAME

RUN_PARAMETERS = ("session", "context", "logger")
LABS_PACKAGE = "stepeval_labs"

StepRun = Callable[[Any, dict[str, Any], Any], Coroutine[Any, Any, Any]]


class LoadError(Exception):
    """The module is missing, does not import, or has no proper `run`; the message (without the path) says which."""


def import_step(path: Path) -> ModuleType:
    """Import the module at `path` under a name of its own (never shadowing another lab's module)."""
    if not path.is_file():
        raise LoadError("no module at this path")
    resolved = path.resolve()
    package = _lab_package(resolved.parent)
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:10]
    name = f"{package}.{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise LoadError("cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    _execute(spec, module, path)
    sys.modules[name] = module
    return module


def _execute(spec: importlib.machinery.ModuleSpec, module: ModuleType, path: Path) -> None:
    """Run a module's code; any failure is a LoadError naming the line or the exception."""
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except LoadError:
        raise
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != LIB_NAME:
            raise LoadError(_import_failed(exc, path)) from None
        raise LoadError(f"import failed: import the lab's helpers relatively: from .{exc.name} import ...") from None
    except SyntaxError as exc:
        where = "" if Path(exc.filename or path) == path else f"{exc.filename}: "
        raise LoadError(f"{where}line {exc.lineno}: SyntaxError: {exc.msg}") from None
    except BaseException as exc:  # any failure while importing author code is a load error
        raise LoadError(_import_failed(exc, path)) from None


def _import_failed(exc: BaseException, path: Path) -> str:
    summary = traceback.format_exception_only(type(exc), exc)[-1].strip()
    return f"import failed: {summary}\n{trimmed_traceback(exc, path)}"


def located(path: Path, key: str, detail: str) -> str:
    """A module's load problem as `file:line: step KEY: problem` (the form lint and editors use): the line the
    loader names (`line 12: SyntaxError: ...`, maybe in another file) or the module's last frame in the traceback;
    `file: step KEY: problem` when no line is known."""
    first_line = (detail.splitlines() or [""])[0]
    named = _NAMED_LINE.fullmatch(first_line)
    if named:
        return f"{named['file'] or path}:{named['line']}: step {key}: {named['problem']}"
    frames = re.findall(rf'File "{re.escape(str(path))}", line (\d+)', detail)
    return f"{path}:{frames[-1]}: step {key}: {first_line}" if frames else f"{path}: step {key}: {first_line}"


_NAMED_LINE = re.compile(r"(?:(?P<file>\S+): )?line (?P<line>\d+): (?P<problem>.*)")


def lib_stamp(module_dir: Path) -> tuple[int, int]:
    """(newest mtime, file count) of the lab's `_lib` sources: a change there re-imports the lab's modules."""
    stamps = [entry.stat().st_mtime_ns for entry in _python_files(os.path.join(module_dir, LIB_NAME))]
    return (max(stamps, default=0), len(stamps))


def _python_files(directory: str) -> Iterator[os.DirEntry[str]]:
    """The entries named `*.py` under `directory` at any depth, as `Path.rglob("*.py")` finds them (directories
    entered unless they are symbolic links; one that is not there or unreadable skipped, as its errors are) at half
    its cost: it runs in every evaluation."""
    try:
        with os.scandir(directory) as scan:
            entries = list(scan)
    except PermissionError:
        return
    except OSError as exc:
        if exc.errno in _NOT_THERE:
            return
        raise
    for entry in entries:
        if entry.name.endswith(".py"):
            yield entry
        try:
            is_dir = entry.is_dir()
        except OSError as exc:
            if exc.errno not in _NOT_THERE:
                raise
            is_dir = False
        if is_dir and not entry.is_symlink():
            yield from _python_files(entry.path)


_NOT_THERE = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)  # the errors pathlib takes for "no such path"


def _lab_package(module_dir: Path) -> str:
    """The package a lab's step modules live in: its only child is the lab's `_lib`, if the lab has one."""
    key = f"{module_dir}:{lib_stamp(module_dir)}"
    package = f"{LABS_PACKAGE}.l{hashlib.sha1(key.encode()).hexdigest()[:10]}"
    if package in sys.modules:
        return package
    if LABS_PACKAGE not in sys.modules:
        sys.modules[LABS_PACKAGE] = _empty_package(LABS_PACKAGE, [])
    sys.modules[package] = _empty_package(package, [])  # nothing beside _lib is found through it
    lib_dir = module_dir / LIB_NAME
    if lib_dir.is_dir():
        lib_name = f"{package}.{LIB_NAME}"
        init = lib_dir / "__init__.py"
        if init.is_file():
            spec = importlib.util.spec_from_file_location(lib_name, init, submodule_search_locations=[str(lib_dir)])
            assert spec is not None
            lib = importlib.util.module_from_spec(spec)
            sys.modules[lib_name] = lib
            try:
                _execute(spec, lib, init)
            except LoadError:
                del sys.modules[lib_name], sys.modules[package]
                raise
        else:
            lib = sys.modules[lib_name] = _empty_package(lib_name, [str(lib_dir)])
        sys.modules[package].__dict__[LIB_NAME] = lib
    return package


def _empty_package(name: str, path: list[str]) -> ModuleType:
    module = ModuleType(name)
    module.__path__ = path
    module.__package__ = name
    return module


def step_run(module: ModuleType, path: Path) -> StepRun:
    """The module's `run`, if it is `async def run(session, context, logger)`."""
    run = getattr(module, "run", None)
    if run is None:
        raise LoadError("defines no run(); expected async def run(session, context, logger)")
    if not inspect.iscoroutinefunction(run):
        raise LoadError("run is not an async def; expected async def run(session, context, logger)")
    if _plain_parameters(run) != RUN_PARAMETERS and tuple(inspect.signature(run).parameters) != RUN_PARAMETERS:
        raise LoadError(f"run{inspect.signature(run)} should be run(session, context, logger)")
    return run


def _plain_parameters(run: Any) -> tuple[str, ...] | None:
    """The parameter names of a plain function (no attribute of its own: no `__wrapped__`, `__signature__`...) in
    `inspect.signature`'s order, read off its code object as inspect does (inspect.signature costs ~0.2 ms in a
    fresh evaluation process); None for anything else, which inspect.signature reads."""
    if type(run) is not FunctionType or run.__dict__:
        return None
    code = run.__code__
    positional, keyword_only = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames
    rest = names[positional + keyword_only :]
    varargs = rest[:1] if code.co_flags & inspect.CO_VARARGS else ()
    varkw = rest[len(varargs) : len(varargs) + 1] if code.co_flags & inspect.CO_VARKEYWORDS else ()
    return names[:positional] + varargs + names[positional : positional + keyword_only] + varkw


def load_step(path: Path) -> StepRun:
    """Import and check in one go."""
    return step_run(import_step(path), path)


def trimmed_traceback(exc: BaseException, focus: Path | None = None, *, limit_chars: int = 4000) -> str:
    """The traceback without the harness's own frames (from the first frame in `focus`, if any), kept short."""
    frames: list[traceback.FrameSummary] = traceback.extract_tb(exc.__traceback__)
    if focus is not None:
        focus_name = str(focus.resolve())
        for index, frame in enumerate(frames):
            if frame.filename == focus_name or frame.filename == str(focus):
                frames = frames[index:]
                break
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc)
    text = "Traceback (most recent call last):\n" + "".join(lines)
    return text if len(text) <= limit_chars else "...\n" + text[-limit_chars:]
