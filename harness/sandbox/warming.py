"""What the pool readies ahead of its jobs: which labs a spare's root holds, which kit modules the template imports,
which clients it builds and which reads it rehearses on them.

Four caches, each bounded, oldest dropped first:
- labs: the labs' `evaluation/` directories jobs will need, at most MAX_LABS;
- imports: the kit modules the expected labs import, at most the kit's own modules (no other name is kept);
- clients: (service, region) pairs to build, at most MAX_WARM;
- rehearsals: (service, method) calls to rehearse on those clients (the reads among them), at most MAX_REHEARSED.

One input only: what the labs' files name (`lab_names`, `Warming.expect`), never what an evaluation did: warming
what one evaluation reported (its clients' regions, its reads) would let a module choose what a later evaluation, in
another account, reads back from the template's clients (a channel between evaluations). `Warming` is not
thread-safe: the pool calls it under its lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from harness.core.paths import (
    DEFAULT_REGION,
    REGION,
    kit_modules_named_in,
    kit_source,
    lab_sources,
    reads_named_in,
    services_named_in,
)

MAX_LABS = 8  # labs' `evaluation/` directories a spare's root holds ahead of its job
MAX_WARM = 16  # (service, region) pairs the template keeps warm for the next evaluations
MAX_REHEARSED = 64  # (service, operation) pairs the template rehearses on them

Key = TypeVar("Key")


class Recent(Generic[Key]):
    """Keys oldest first, at most `bound` of them after each `put` (the oldest go); `bound` None: the caller's
    keys are bounded by what they can be."""

    def __init__(self, bound: int | None) -> None:
        self.bound = bound
        self._keys: dict[Key, None] = {}

    def put(self, keys: Iterable[Key], *, renew: bool) -> None:
        """Add `keys` in order; `renew`: one already here becomes the newest (else it keeps its place)."""
        for key in keys:
            if renew:
                self._keys.pop(key, None)
            self._keys.setdefault(key, None)
        while self.bound is not None and len(self._keys) > self.bound:
            del self._keys[next(iter(self._keys))]

    def __iter__(self) -> Iterator[Key]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys


@dataclass(frozen=True)
class LabNames:
    """What one lab's files name, read as text: its `evaluation/` directory, the kit modules its modules import
    (with those they import in turn), the AWS services they and those kit modules name, and the calls each file
    makes on the services it names (the lab's own files first)."""

    directory: str
    kit: frozenset[str]
    services: frozenset[str]
    calls: tuple[tuple[str, str], ...] = ()


def lab_names(directory: str, *, services: bool = True, modules: Iterable[str] | None = None) -> LabNames:
    """Read what the lab under `directory` names; `services` False: not the services (a pool that builds no
    clients need not read the kit's sources for them); `modules`: of its step modules, only these are read."""
    sources = lab_sources(directory, modules)
    kit = kit_modules_named_in(sources)
    if not services:
        return LabNames(directory, frozenset(kit), frozenset())
    files = [*sources, *map(kit_source, sorted(kit))]
    return LabNames(directory, frozenset(kit), frozenset(services_named_in(files)), tuple(reads_named_in(files)))


class Warming:
    """The four caches and the rules that fill them (see the module's docstring)."""

    def __init__(self) -> None:
        self.labs: Recent[str] = Recent(MAX_LABS)
        self.imports: Recent[str] = Recent(None)  # only `harness.kit.*` modules that exist (`lab_names`)
        self.clients: Recent[tuple[str, str]] = Recent(MAX_WARM)
        self.rehearsals: Recent[tuple[str, str]] = Recent(MAX_REHEARSED)

    def expect(self, labs: Iterable[LabNames], region: str | None) -> None:
        """Jobs of these labs are coming: their directories become the newest held, their kit modules are
        imported, and the clients for the services they name are built in `region` (a malformed or missing one:
        the default region). A pair already warm keeps its place."""
        region = region if region and REGION.fullmatch(region) else DEFAULT_REGION
        labs = list(labs)
        self.labs.put((lab.directory for lab in labs), renew=True)
        self.imports.put((module for lab in labs for module in sorted(lab.kit)), renew=False)
        self.clients.put(((service, region) for lab in labs for service in sorted(lab.services)), renew=False)
        self.rehearsals.put((call for lab in labs for call in lab.calls), renew=False)

    def expect_paths(self, paths: Iterable[str]) -> None:
        """A job needed these paths and no spare held them: spares hold them from now on."""
        self.labs.put(paths, renew=False)

    def preparation(self) -> dict[str, list[Any]]:
        """What the template readies a spare with, as its message's fields: clients, kit imports, rehearsals."""
        return {"warm": list(self.clients), "imports": list(self.imports), "rehearse": list(self.rehearsals)}
