"""The labs a service serves (`--lab DIR`, or every lab under `--labs DIR`), each in the versions it holds.

A version is served from a copy of the bytes its version hashes (harness/core/lab_version.py), under one
directory every evaluation process's root holds: an author editing the lab on disk changes nothing already
served. A reload (SIGHUP, or the signed admin request) reads the directories again: a changed lab's new version
serves the requests that arrive after it; the newest `kept` versions of each lab stay (a request may name one);
a version that fails to load (its spec, or a module that does not import) is not served, its copy removed at once,
and its lab keeps the version it had. A version is one per lab whatever directory it is read from (a lab directory
renamed, or a symlink pointed elsewhere, with the same files is the same version, not a change). A version no longer
held is removed from disk once no request admitted on it holds it (`lease`/`release`).
"""

from __future__ import annotations

import difflib
import functools
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core import logs
from harness.core.errors import BadInput, LabError
from harness.core.lab import Lab, find_spec_file, load_lab
from harness.core.lab_version import lab_files, version_of
from harness.sandbox.pool import WorkerPool
from harness.sandbox.runner import Runner
from harness.service.problems import Problem, show

DEFAULT_KEPT = 2  # versions held per lab: the one served and the one before it


@dataclass(eq=False)
class LabVersion:
    """One version of one lab, loaded from its copy: what a request is judged by."""

    name: str  # the spec's project
    version: str
    lab: Lab
    source: Path  # the lab's directory, as the operator gave it
    copy: Path
    runner: Runner
    loaded_at: float
    module_problems: list[str] = field(default_factory=list)
    users: int = 0  # requests admitted on it and not yet answered: its copy stays while there are any
    dropped: bool = False  # no longer held: its copy goes once it has no users

    def describe(self) -> dict[str, Any]:
        return {"version": self.version, "steps": len(self.lab.steps), "loaded_at": round(self.loaded_at, 3)}


@dataclass
class ServedLab:
    """One lab: its versions newest first (the first serves requests that name none), and why the last reload
    did not give it a new one."""

    versions: list[LabVersion]
    reload_problem: str | None = None

    @property
    def current(self) -> LabVersion:
        return self.versions[0]


@dataclass(frozen=True)
class Loaded:
    """A lab directory read: its files, version and lab (from the copy), or why it could not be."""

    source: Path
    version: LabVersion | None = None
    problem: str | None = None


def lab_directories(labs_dir: Path) -> list[Path]:
    """Every directory directly under `labs_dir` holding `specs/`, in name order, but those named with a leading
    dot (a lab being staged); BadInput when it is not a directory."""
    if not labs_dir.is_dir():
        raise BadInput(f"--labs {labs_dir}: not a directory (it holds one directory per lab, each with specs/)")
    return sorted(
        path
        for path in labs_dir.iterdir()
        if not path.name.startswith(".") and path.is_dir() and (path / "specs").is_dir()
    )


class LabCatalog:
    """Every lab served and its versions; `choose` picks the one a request is judged by. Thread-safe."""

    def __init__(
        self,
        pool: WorkerPool,
        *,
        lab_dir: Path | None = None,
        labs_dir: Path | None = None,
        kept: int = DEFAULT_KEPT,
    ) -> None:
        """One of `lab_dir` (one lab) and `labs_dir` (every lab under it). Loads them now: BadInput when no lab
        loads (a lab of many that does not is reported in `problems` and served once it loads)."""
        if (lab_dir is None) == (labs_dir is None):
            raise ValueError("give one of lab_dir and labs_dir")
        self.pool = pool
        self.lab_dir = lab_dir.resolve() if lab_dir else None
        self.labs_dir = labs_dir.resolve() if labs_dir else None
        self.kept = max(2, kept)
        self._dropped: list[LabVersion] = []
        self.copies = Path(tempfile.mkdtemp(prefix="stepeval-labs-"))
        # Every evaluation's uid reaches the copies (their files are 0644) but cannot list them: an evaluation finds
        # no other lab's files by looking (Landlock, where it holds, leaves it its own lab's alone).
        os.chmod(self.copies, 0o711)
        pool.hold(str(self.copies))
        self.labs: dict[str, ServedLab] = {}
        self.problems: list[str] = []  # what the last read could not serve, one line each
        self.unserved: dict[Path, str] = {}  # those of lab directories serving no version at all
        self.failed_at_start: set[Path] = set()  # the directories deployed with the service that did not load
        self.reloaded_at: float | None = None
        self._lock = threading.Lock()  # guards the versions' users and `labs`' swaps
        self._reloading = threading.Lock()  # one reload at a time
        try:
            self._publish([self._load(source, check=False) for source in self._sources()], initial=True)
            if not self.labs and self.lab_dir is not None:
                raise LabError(self.problems[0].splitlines())
            if not self.labs:
                problems = "; ".join(self.problems) or "no directory in it holds specs/"
                raise BadInput(f"--labs {self.labs_dir}: no lab could be loaded: {problems}")
        except BadInput:
            self.close()
            raise

    # -- reading labs ------------------------------------------------------------------------------------------

    def _sources(self) -> list[Path]:
        if self.lab_dir is not None:
            return [self.lab_dir]
        assert self.labs_dir is not None
        return lab_directories(self.labs_dir)

    def _load(self, source: Path, *, check: bool) -> Loaded:
        """`source` read once, copied, loaded from the copy (the version already held when unchanged)."""
        try:
            find_spec_file(source)  # no directory, no spec: said of the lab's own path
            files = lab_files(source)
        except BadInput as exc:
            return Loaded(source, problem=str(exc))
        except OSError as exc:
            return Loaded(source, problem=f"{source}: cannot read: {exc}")
        version = version_of(files)
        held = self._held(source, version)
        if held is not None:
            return Loaded(source, held)
        copy = self.copies / f"{source.name}-{version}"
        try:
            if not copy.exists():
                write_copy(copy, files)
            lab = load_lab(copy)
        except BadInput as exc:
            shutil.rmtree(copy, ignore_errors=True)
            return Loaded(source, problem=str(exc).replace(str(copy), str(source)))
        except OSError as exc:  # the temporary directory full, say: nothing half-written is left
            shutil.rmtree(copy, ignore_errors=True)
            shutil.rmtree(copy.with_name(copy.name + ".partial"), ignore_errors=True)
            return Loaded(source, problem=f"{source}: cannot copy: {exc}")
        served = LabVersion(lab.spec.project, version, lab, source, copy, Runner(lab, self.pool), time.time())
        if check:
            served.module_problems = self.check_modules(served, beside=True)
        return Loaded(source, served)

    def _held(self, source: Path, version: str) -> LabVersion | None:
        """`version` already loaded, held or dropped but still on disk (a rollback: taken back), read from `source`
        or from another directory (a version hashes the lab's files, its project among them: the same version is the
        same lab's, whichever directory holds it). Preferred: the one read from `source`."""
        with self._lock:
            found = [held for served in self.labs.values() for held in served.versions if held.version == version]
            found += [dropped for dropped in self._dropped if dropped.version == version]
            if not found:
                return None
            held = next((held for held in found if held.source == source), found[0])
            if held in self._dropped:
                self._dropped.remove(held)
                held.dropped = False
            return held

    def check_modules(self, served: LabVersion, *, beside: bool = False) -> list[str]:
        """Each step's module imported in an evaluation process: the problems, one line each, naming the lab's
        own files (not the copy's). `beside` (a reload, while requests are evaluated): one at a time, in a process
        beside the workers', so that a module hanging at import holds no worker a request waits for."""
        steps = list(served.lab.steps.values())
        check = functools.partial(served.runner.check_module, beside=beside)
        with ThreadPoolExecutor(1 if beside else max(1, min(self.pool.size, len(steps)))) as threads:
            found = [p for p in threads.map(check, steps) if p]
        return sorted({problem.replace(str(served.copy), str(served.source)) for problem in found})

    # -- publishing ----------------------------------------------------------------------------------------------

    def _publish(self, loaded: list[Loaded], *, initial: bool = False) -> dict[str, Any]:
        """The loaded versions become the newest of their labs; what changed, and what did not load."""
        changed: list[str] = []
        problems: list[str] = []
        unserved: dict[Path, str] = {}  # the problems of directories that serve no version at all
        seen: dict[str, Path] = {}
        with self._lock:
            labs = {name: ServedLab(list(s.versions), None) for name, s in self.labs.items()}
            for item in sorted(loaded, key=lambda item: not self._serves_its_project(item)):  # stable
                served = item.version
                if served is None:
                    problems.append(item.problem or f"{item.source}: not loaded")
                    self._kept_back(labs, item.source, problems[-1], unserved)
                    continue
                if served.name in seen and seen[served.name] != item.source:
                    problems.append(
                        f"{item.source}: project {served.name!r} is already served from {seen[served.name]}"
                    )
                    self._kept_back(labs, item.source, problems[-1], unserved)
                    if not any(held is served for lab in labs.values() for held in lab.versions):
                        self._drop(served)
                    continue
                seen[served.name] = item.source
                served.source = item.source  # a version read from a directory renamed since: known by its new name
                held = served.name in labs and any(v is served for v in labs[served.name].versions)  # kept as is
                if not initial and served.module_problems and not held:  # a new lab too: served once it loads
                    problem = f"{item.source}: version {served.version} not served: " + "; ".join(
                        served.module_problems
                    )
                    problems.append(problem)
                    if served.name in labs:
                        labs[served.name].reload_problem = problem
                    else:
                        self._kept_back(labs, item.source, problem, unserved)
                    self._drop(served)
                    continue
                lab = labs.setdefault(served.name, ServedLab([]))
                if lab.versions and lab.current is served:
                    continue
                lab.versions = [served, *[v for v in lab.versions if v.version != served.version]]
                for old in lab.versions[self.kept :]:
                    self._drop(old)
                lab.versions = lab.versions[: self.kept]
                changed.append(f"{served.name}@{served.version}")
            problems += self._left_behind(labs, loaded)
            self.labs = labs
            self.problems = problems
            self.unserved = unserved
            if initial:
                self.failed_at_start = set(unserved)
        for problem in problems:
            logs.log_line(event="lab_problem", detail=problem)
        return {"changed": changed, "problems": problems}

    def _serves_its_project(self, item: Loaded) -> bool:
        """Whether `item`'s directory is the one its project is served from now: it keeps the project when another
        directory's spec names the same one (the newcomer is refused, whichever name sorts first)."""
        served = self.labs.get(item.version.name) if item.version is not None else None
        return served is not None and served.current.source == item.source

    @staticmethod
    def _left_behind(labs: dict[str, ServedLab], loaded: list[Loaded]) -> list[str]:
        """The labs whose directory is gone, or now holds another project: each keeps serving, said why."""
        sources = {item.source for item in loaded}
        now = {item.source: item.version.name for item in loaded if item.version is not None}
        said = []
        for name, lab in labs.items():
            source = lab.current.source
            if source not in sources:
                lab.reload_problem = f"{source}: directory gone: still serving the last version"
            elif now.get(source, name) != name and lab.reload_problem is None:
                lab.reload_problem = f"{source}: now holds project {now[source]!r}: still serving {name}'s last version"
            else:
                continue
            said.append(lab.reload_problem)
        return said

    @staticmethod
    def _kept_back(labs: dict[str, ServedLab], source: Path, problem: str, unserved: dict[Path, str]) -> None:
        """A directory whose read is not served: the labs known by it keep their version, said why; else it serves
        nothing (under the lock)."""
        known = [lab for lab in labs.values() if lab.current.source == source]
        for lab in known:
            lab.reload_problem = problem
        if not known:
            unserved[source] = problem

    def _drop(self, served: LabVersion) -> None:
        """No longer held (under the lock): its copy goes once no request admitted on it is still unanswered."""
        served.dropped = True
        self._dropped.append(served)
        self._sweep()

    def _sweep(self) -> None:
        """The copies of dropped versions no request holds any more, set aside by a rename and removed on a thread
        of their own (under the lock, which the event loop takes to admit a request, and from `release`, which it
        calls: a copy of many files is not removed there)."""
        aside: list[Path] = []
        for served in [served for served in self._dropped if served.users == 0]:
            self._dropped.remove(served)
            gone = served.copy.with_name(f".gone-{served.copy.name}-{uuid.uuid4().hex[:8]}")
            with suppress(OSError):  # never written, or removed already
                served.copy.rename(gone)
                aside.append(gone)
        if aside:
            threading.Thread(target=remove_all, args=(aside,), name="stepeval-copies", daemon=True).start()

    def reload(self, reason: str) -> dict[str, Any]:
        """Read the lab directories again (one reload at a time); what changed and what did not load."""
        with self._reloading:
            started = time.monotonic()
            try:
                sources = self._sources()
            except BadInput as exc:
                outcome: dict[str, Any] = {"changed": [], "problems": [str(exc)]}
            else:
                outcome = self._publish([self._load(source, check=True) for source in sources])
            self.reloaded_at = time.time()
            seconds = round(time.monotonic() - started, 3)
            logs.log_line(event="reload", reason=reason, seconds=seconds, **outcome)
            return {**outcome, "seconds": seconds, "labs": self.describe()}

    # -- serving -------------------------------------------------------------------------------------------------

    def choose(self, name: str | None, version: str | None) -> LabVersion:
        """The version a request is judged by: its lab's newest, or the one it names; Problem 422 (no such lab, or
        none named where several are served) or 409 (a version not held)."""
        labs = self.labs
        if name is None:
            if len(labs) == 1:
                served = next(iter(labs.values()))
            else:
                raise Problem(
                    422,
                    "invalid_field",
                    f"lab: is required: this service serves {len(labs)} labs ({', '.join(sorted(labs))})",
                    field="lab",
                )
        elif name in labs:
            served = labs[name]
        else:
            near = difflib.get_close_matches(name, list(labs), n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            raise Problem(
                422,
                "unknown_lab",
                f"lab: no lab {show(name)} is served here{hint} (labs: {', '.join(sorted(labs)) or 'none'})",
                field="lab",
            )
        if version is None:
            return served.current
        for held in served.versions:
            if held.version == version:
                return held
        versions = ", ".join(v.version for v in served.versions)
        raise Problem(
            409,
            "unknown_lab_version",
            f"lab_version: {show(version)} of {served.current.name} is not held here (versions: {versions})",
            field="lab_version",
        )

    def lease(self, name: str | None, version: str | None) -> LabVersion:
        """`choose`, the version counted as used until `release`: its copy stays on disk while a request admitted
        on it is unanswered (waiting for STS or a worker, or running), however long that is."""
        with self._lock:
            served = self.choose(name, version)
            served.users += 1
            return served

    @contextmanager
    def using(self, served: LabVersion) -> Iterator[LabVersion]:
        """An evaluation runs on `served` while inside: counted apart from its request's lease, so that a request
        abandoned while its evaluation still runs on a thread leaves the copy in place."""
        with self._lock:
            served.users += 1
        try:
            yield served
        finally:
            self.release(served)

    def release(self, served: LabVersion) -> None:
        """A request leased on `served` answered: a dropped version's copy goes with its last one."""
        with self._lock:
            served.users -= 1
            self._sweep()

    def degraded(self) -> list[str]:
        """The problems of the lab directories deployed with the service that still serve nothing: readiness fails
        while there are any (a lab added by a reload that fails to load is said by the reload and `/readyz`'s
        `lab_problems`, and leaves readiness alone: the labs already served keep their instances in service)."""
        return [problem for source, problem in self.unserved.items() if source in self.failed_at_start]

    def versions(self) -> list[LabVersion]:
        """Every version held, newest of each lab first."""
        return [held for served in self.labs.values() for held in served.versions]

    def describe(self) -> list[dict[str, Any]]:
        """Each lab as `/readyz` lists it."""
        return [
            {
                "lab": name,
                "version": served.current.version,
                "steps": len(served.current.lab.steps),
                "versions": [held.version for held in served.versions],
                "directory": str(served.current.source),
                "module_problems": served.current.module_problems,
                "reload_problem": served.reload_problem,
            }
            for name, served in sorted(self.labs.items())
        ]

    def close(self) -> None:
        shutil.rmtree(self.copies, ignore_errors=True)


def remove_all(paths: list[Path]) -> None:
    """Each directory removed, whatever is already gone."""
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)


def write_copy(copy: Path, files: dict[str, bytes]) -> None:
    """The lab's files under `copy`, readable by every uid, written whole before the directory takes its name."""
    partial = copy.with_name(copy.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    for relative, content in files.items():
        target = partial / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(target.parent, 0o755)
        target.write_bytes(content)
        os.chmod(target, 0o644)
    os.chmod(partial, 0o755)
    partial.rename(copy)
