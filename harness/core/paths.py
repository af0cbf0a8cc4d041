"""Where an evaluation's files are (what its root must hold for a job, where the gateway listens), and the names
a job may carry (services, regions), checked the same way wherever they arrive.

Light on purpose (no boto3): the pool uses it before the heavy imports, the template inside the root.
"""

from __future__ import annotations

import functools
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

GATEWAY_SOCKET_NAME = "gateway.sock"
SOCKET_PATH_MAX = 107  # bytes of a unix socket's path: sun_path holds 108, the last a NUL
SHORT_TMP = "/tmp"  # where a gateway's directory goes when TMPDIR is too deep for its socket
LIB_NAME = "_lib"  # a lab's shared helpers: `evaluation/boto3/_lib/`
MODULE_DIR = Path("evaluation") / "boto3"  # a lab's step modules: `evaluation/boto3/01_02.py`
STEP_KEY = re.compile(r"([0-9]{2})[._]([0-9]{2})")  # "01.02" or "01_02"
DEFAULT_REGION = "us-east-1"  # when neither a caller nor the environment names one
REGION = re.compile(r"\A[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\Z")
SERVICE = re.compile(r"\A[a-z0-9-]{2,64}\Z")
SERVICE_NAMED = re.compile(r"""\b(?:client|resource)\(\s*["']([a-z0-9-]+)["']""")
NOT_CALLS = frozenset({"client", "resource", "get_paginator", "get_waiter", "paginate", "get", "items", "append"})
METHOD_CALLED = re.compile(r"""\.([a-z][a-z0-9_]{1,63})\s*\(|get_paginator\(\s*["']([a-z][a-z0-9_]{1,63})["']""")
KIT_DIR = Path(__file__).resolve().parents[1] / "kit"
KIT_NAMED = re.compile(r"\bharness\.kit\.(\w+)|\bfrom\s+harness\.kit\s+import\s+(?:\(([^)]*)\)|([^\n#;]+))")
KIT_MODULE = re.compile(r"\Aharness\.kit\.[a-z_][a-z0-9_]*\Z")


def new_gateway_directory() -> str:
    """A fresh directory for a gateway's socket, readable by every evaluation's uid (it holds only the socket): in
    the temporary directory, or in /tmp where that one is too deep for a socket's path (108 bytes at most)."""
    directory = tempfile.mkdtemp(prefix="stepeval-gw-")
    if len(os.fsencode(socket_in(directory))) > SOCKET_PATH_MAX:
        os.rmdir(directory)
        directory = tempfile.mkdtemp(prefix="stepeval-gw-", dir=SHORT_TMP)
    os.chmod(directory, 0o755)
    return directory


def socket_in(directory: str) -> str:
    """Where a gateway listening in `directory` has its socket."""
    return os.path.join(directory, GATEWAY_SOCKET_NAME)


def lab_modules(lab_dir: str | Path) -> str:
    """A lab's `evaluation/` directory, as `module_root` names it for each of its step modules."""
    return str(Path(lab_dir).resolve() / "evaluation")


def module_path(lab_dir: Path, objective: str, step: str) -> Path:
    """Where a lab keeps a step's module: `evaluation/boto3/01_02.py` for objective 01, step 02."""
    return lab_dir / MODULE_DIR / f"{objective}_{step}.py"


def step_module(lab_dir: str | Path, raw_key: str) -> str | None:
    """The module a step key ("01.02" or "01_02") names in the lab, before the spec is read; None for a malformed
    key (reading the lab says why)."""
    match = STEP_KEY.fullmatch(raw_key or "")
    return str(module_path(Path(lab_dir).resolve(), match.group(1), match.group(2))) if match else None


def module_root(module: str | Path) -> str:
    """The directory a step module's evaluation needs: its lab's `evaluation/` (with the lab's `_lib`)."""
    module = Path(module)
    return str(module.parent.parent if module.parent.name == "boto3" else module.parent)


def job_paths(job: dict[str, Any]) -> list[str]:
    """What the job must read besides the interpreter: its lab's `evaluation/` directory, the gateway's socket."""
    paths = [module_root(job["module"])]
    if job.get("gateway"):
        paths.append(job["gateway"]["socket"])
    return paths


def covered(path: str, by: list[str]) -> bool:
    """`path` is one of `by` or inside one of them."""
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in by)


def lab_sources(modules: str | Path, only: Iterable[str | Path] | None = None) -> list[Path]:
    """The Python files under a lab's `evaluation/` directory: its step modules and its shared helpers; `only`:
    of its step modules, those alone (those that exist)."""
    steps = Path(modules).glob("*/*.py") if only is None else (Path(path) for path in only if Path(path).is_file())
    return [*steps, *Path(modules).glob(f"*/{LIB_NAME}/*.py")]


def services_named_in(sources: Iterable[Path]) -> set[str]:
    """The AWS services these Python files name (`client("ec2")`, `resource("s3")`): a hint, read as text."""
    return {name for path in sources for name in _findall(SERVICE_NAMED, path)}


def reads_named_in(sources: Iterable[Path]) -> list[tuple[str, str]]:
    """(service, method) pairs these files name, in order: each file's services with each method it calls (most
    are no client's: whoever builds the clients keeps the pairs that are a read of theirs). A hint, read as text."""
    found: dict[tuple[str, str], None] = {}
    for path in sources:
        services = sorted(set(_findall(SERVICE_NAMED, path)))
        methods = dict.fromkeys(dotted or paged for dotted, paged in _findall(METHOD_CALLED, path))
        methods = {method: None for method in methods if method not in NOT_CALLS}
        found.update(dict.fromkeys((service, method) for service in services for method in methods))
    return list(found)


def kit_modules_named_in(sources: Iterable[Path]) -> set[str]:
    """The kit's modules these files import (`from harness.kit import s3`, `harness.kit.step`), with the kit
    modules those import in turn, as `harness.kit.NAME`: a hint, read as text; only the kit's own files count."""
    found: set[str] = set()
    pending = list(sources)
    while pending:
        for dotted, grouped, listed in _findall(KIT_NAMED, pending.pop()):
            parts = [dotted] if dotted else (grouped or listed).split(",")
            for name in (part.split()[0] for part in parts if part.split()):
                module = f"harness.kit.{name}"
                if module not in found and KIT_MODULE.fullmatch(module) and kit_source(module).is_file():
                    found.add(module)
                    pending.append(kit_source(module))
    return found


def kit_source(module: str) -> Path:
    """The file of the kit module `harness.kit.NAME`."""
    return KIT_DIR / f"{module.rsplit('.', 1)[-1]}.py"


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _findall(pattern: re.Pattern[str], path: Path) -> list[Any]:
    """What `pattern` finds in the file: a kit file's read once per process (the kit's sources are the installed
    package's: ~300 KB behind a lab, read again by every pool's `expect` otherwise)."""
    return list(_kit_findall(pattern, path)) if path.parent == KIT_DIR else pattern.findall(_text(path))


@functools.cache
def _kit_findall(pattern: re.Pattern[str], path: Path) -> tuple[Any, ...]:
    return tuple(pattern.findall(_text(path)))


def environment_region() -> str | None:
    """The region the environment names, as boto3 reads it (AWS_REGION, then AWS_DEFAULT_REGION)."""
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
