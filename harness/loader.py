"""Import a step module by path and check that it defines `async def run(session, context, logger)`."""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Callable, Coroutine
from pathlib import Path
from types import ModuleType
from typing import Any

RUN_PARAMETERS = ("session", "context", "logger")

StepRun = Callable[[Any, dict[str, Any], Any], Coroutine[Any, Any, Any]]


class LoadError(Exception):
    """The module is missing, does not import, or has no proper `run`; the message (without the path) says which."""


def import_step(path: Path) -> ModuleType:
    """Import the module at `path` under a name of its own (never shadowing another lab's module)."""
    if not path.is_file():
        raise LoadError("no module at this path")
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:10]
    name = f"stepeval_steps.{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise LoadError("cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise LoadError(f"line {exc.lineno}: SyntaxError: {exc.msg}") from None
    except BaseException as exc:  # any failure while importing author code is a load error
        summary = traceback.format_exception_only(type(exc), exc)[-1].strip()
        raise LoadError(f"import failed: {summary}\n{trimmed_traceback(exc, path)}") from None
    sys.modules[name] = module
    return module


def step_run(module: ModuleType, path: Path) -> StepRun:
    """The module's `run`, if it is `async def run(session, context, logger)`."""
    run = getattr(module, "run", None)
    if run is None:
        raise LoadError("defines no run(); expected async def run(session, context, logger)")
    if not inspect.iscoroutinefunction(run):
        raise LoadError("run is not an async def; expected async def run(session, context, logger)")
    parameters = tuple(inspect.signature(run).parameters)
    if parameters != RUN_PARAMETERS:
        raise LoadError(f"run{inspect.signature(run)} should be run(session, context, logger)")
    return run


def load_step(path: Path) -> StepRun:
    """Import and check in one go."""
    return step_run(import_step(path), path)


def trimmed_traceback(exc: BaseException, focus: Path | None = None, *, limit_chars: int = 4000) -> str:
    """The traceback without the harness's own frames (from the first frame in `focus`, if any), kept short."""
    frames = traceback.extract_tb(exc.__traceback__)
    if focus is not None:
        focus_name = str(focus.resolve())
        for index, frame in enumerate(frames):
            if frame.filename == focus_name or frame.filename == str(focus):
                frames = frames[index:]
                break
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc)
    text = "Traceback (most recent call last):\n" + "".join(lines)
    return text if len(text) <= limit_chars else "...\n" + text[-limit_chars:]
