"""The loader's cheaper reads stay what they stand for: the `_lib` stamp is what `Path.rglob("*.py")` finds, the
parameter check is what `inspect.signature` says, and a helper changed on disk is seen by the next load."""

from __future__ import annotations

import functools
import inspect
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from harness.inside import loader
from harness.inside.loader import LoadError, lib_stamp, load_step


def rglob_stamp(module_dir: Path) -> tuple[int, int]:
    stamps = [path.stat().st_mtime_ns for path in (module_dir / "_lib").rglob("*.py")]
    return (max(stamps, default=0), len(stamps))


def test_the_stamp_counts_what_rglob_finds(tmp_path: Path) -> None:
    assert lib_stamp(tmp_path) == rglob_stamp(tmp_path) == (0, 0)  # no _lib
    lib = tmp_path / "_lib"
    lib.write_text("")  # a file where the directory would be
    assert lib_stamp(tmp_path) == rglob_stamp(tmp_path) == (0, 0)
    lib.unlink()
    for relative in ("__init__.py", "a.py", ".hidden.py", "notes.txt", "deep/b.py", "deep/er/c.py", "x.py/d.py"):
        (lib / relative).parent.mkdir(parents=True, exist_ok=True)
        (lib / relative).write_text("X = 1\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "e.py").write_text("")
    (lib / "linked").symlink_to(outside)  # not entered, as rglob does not
    (lib / "linked.py").symlink_to(outside / "e.py")  # counted, its target's time
    os.utime(outside / "e.py", ns=(1, 2**62))
    assert lib_stamp(tmp_path) == rglob_stamp(tmp_path) == (2**62, 8)
    (lib / "deep" / "er" / "c.py").write_text("X = 2\n")
    os.utime(lib / "deep" / "er" / "c.py", ns=(1, 2**62 + 1))
    assert lib_stamp(tmp_path) == rglob_stamp(tmp_path) == (2**62 + 1, 8)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a directory without the read permission")
def test_an_unreadable_directory_is_skipped_as_rglob_skips_it(tmp_path: Path) -> None:
    locked = tmp_path / "_lib" / "locked"
    locked.mkdir(parents=True)
    (locked / "a.py").write_text("")
    (tmp_path / "_lib" / "b.py").write_text("")
    locked.chmod(0)
    try:
        assert lib_stamp(tmp_path) == rglob_stamp(tmp_path)
    finally:
        locked.chmod(0o755)


def _plain(session, context, logger): ...  # type: ignore[no-untyped-def]
def _swapped(context, session, logger): ...  # type: ignore[no-untyped-def]
def _fewer(session, context): ...  # type: ignore[no-untyped-def]
def _more(session, context, logger, extra=None): ...  # type: ignore[no-untyped-def]
def _posonly(session, context, logger, /): ...  # type: ignore[no-untyped-def]
def _star(session, context, *logger): ...  # type: ignore[no-untyped-def]
def _kwonly(session, context, *, logger): ...  # type: ignore[no-untyped-def]
def _starkw(session, *context, **logger): ...  # type: ignore[no-untyped-def]
def _kw(session, context, **logger): ...  # type: ignore[no-untyped-def]
def _all(session, /, context, *args, logger, **kwargs): ...  # type: ignore[no-untyped-def]
def _locals(session, context, logger):  # type: ignore[no-untyped-def]
    inner = session
    return inner


def _wrapped(*args: Any, **kwargs: Any) -> None: ...


_wrapped.__wrapped__ = _plain  # type: ignore[attr-defined]


def _signed(a, b, c): ...  # type: ignore[no-untyped-def]


_signed.__signature__ = inspect.signature(_plain)  # type: ignore[attr-defined]

FUNCTIONS = [_plain, _swapped, _fewer, _more, _posonly, _star, _kwonly, _starkw, _kw, _all, _locals, _wrapped, _signed]


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_the_parameter_check_says_what_inspect_says(function: Any) -> None:
    plain = loader._plain_parameters(function)
    assert plain is None or plain == tuple(inspect.signature(function).parameters)


def test_a_function_with_attributes_of_its_own_is_left_to_inspect() -> None:
    assert loader._plain_parameters(_wrapped) is None and loader._plain_parameters(_signed) is None
    assert loader._plain_parameters(functools.partial(_plain, None)) is None
    assert loader._plain_parameters(_plain) == loader.RUN_PARAMETERS


@pytest.mark.parametrize(
    ("signature", "accepted"),
    [
        ("session, context, logger", True),
        ("session, context, logger, /", True),
        ("session, context, *, logger", True),
        ("session, context, *logger", True),
        ("session, context", False),
        ("session, context, logger, extra=None", False),
        ("context, session, logger", False),
    ],
)
def test_a_modules_run_is_accepted_as_before(tmp_path: Path, signature: str, accepted: bool) -> None:
    module = tmp_path / "evaluation" / "boto3" / "01_01.py"
    module.parent.mkdir(parents=True)
    module.write_text(f"async def run({signature}):\n    return {{}}\n")
    before = tuple(inspect.signature(_async_with(signature)).parameters) == loader.RUN_PARAMETERS
    assert before is accepted
    if accepted:
        assert inspect.iscoroutinefunction(load_step(module))
    else:
        with pytest.raises(LoadError, match=r"should be run\(session, context, logger\)"):
            load_step(module)


def test_a_decorated_run_is_read_through_its_wrapper(tmp_path: Path) -> None:
    module = tmp_path / "evaluation" / "boto3" / "01_01.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        textwrap.dedent(
            """\
            import functools

            def keep(f):
                @functools.wraps(f)
                async def wrapper(*args, **kwargs):
                    return await f(*args, **kwargs)
                return wrapper

            @keep
            async def run(session, context, logger):
                return {}
            """
        )
    )
    assert inspect.iscoroutinefunction(load_step(module))


def _async_with(signature: str) -> Any:
    namespace: dict[str, Any] = {}
    exec(f"async def run({signature}): pass", namespace)
    return namespace["run"]


def test_a_helper_changed_on_disk_is_seen_by_the_next_load(tmp_path: Path) -> None:
    steps = tmp_path / "evaluation" / "boto3"
    (steps / "_lib").mkdir(parents=True)
    (steps / "_lib" / "__init__.py").write_text("")
    helper = steps / "_lib" / "words.py"
    helper.write_text("WORD = 'first'\n")
    module = steps / "01_01.py"
    module.write_text("from ._lib.words import WORD\n\n\nasync def run(session, context, logger):\n    return WORD\n")
    first = load_step(module)
    helper.write_text("WORD = 'second'\n")
    os.utime(helper, ns=(1, helper.stat().st_mtime_ns + 10**9))  # a clock too coarse to tell them apart
    second = load_step(module)
    assert first.__globals__["WORD"] == "first" and second.__globals__["WORD"] == "second"
    assert first.__module__ != second.__module__ and first.__module__ in sys.modules
