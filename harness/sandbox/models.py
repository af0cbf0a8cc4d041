"""The botocore models the gateway reads requests and answers by: shared for the services the labs name, an
evaluation's own for the others.

A model of its own per service (botocore's S3 customizations rewrite the URIs of the models clients share, so
the process's shared loader cannot be read as sent), read by a loader made for the one read and dropped after it
(botocore's loaders keep everything they ever read). What one evaluation loads must tell no later one anything (a
model read from disk takes 13-90 ms, a warm one nothing: a module could spell its account's data in which models it
loads, and another evaluation, of another account, read it back by timing its first calls). So:
- the services the labs' files name are pinned (the gateway pins them before their evaluations run) and shared:
  read once, kept, and completed by the gateway in a thread of its own (operations.complete: everything it derives
  from a model lazily, derived at once), so they are the same whatever an evaluation asked (a request that comes
  first derives only what completing derives too);
- every other service is read into the cache of the evaluation that asks (`ModelScope`, in force in the gateway's
  threads serving it: `scoped`), at most SCOPE_BYTES of JSON (the one just read always kept), dropped with it;
- outside any evaluation (tools, tests), a process-wide cache of MODEL_CACHE_BYTES, least recently used first out.
Sizes are counted as each model's JSON (about a quarter of what it takes in memory).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import botocore.loaders
from botocore.model import ServiceModel

from harness.core.botocore_models import known_services
from harness.core.secret_shapes import ModelSecrets, secrets_of

MODEL_CACHE_BYTES = 16 * 1024 * 1024  # of JSON, outside any evaluation
SCOPE_BYTES = 8 * 1024 * 1024  # of JSON, in one evaluation, for the services the labs do not name
CONCURRENT_LOADS = 2  # models read at once (each is a few MB of JSON while it is parsed)


class UnknownService(Exception):
    """A service name botocore has no model of."""


@dataclass
class LoadedService:
    """One service's model and what the gateway derives from it, computed once per load."""

    model: ServiceModel
    size: int  # bytes of its JSON
    secrets: ModelSecrets
    derived: dict[str, object] = field(default_factory=dict)  # e.g. the REST routes (harness/sandbox/operations.py)
    lock: threading.Lock = field(default_factory=threading.Lock)
    whole: bool = False  # everything derived from it already (operations.complete)


def read_model(service: str) -> LoadedService:
    """`service`'s model as published, read by a loader of its own that is dropped after."""
    if service not in known_services():
        raise UnknownService(f"no AWS service named {service!r}")
    raw = botocore.loaders.create_loader().load_service_model(service, "service-2")
    size = len(json.dumps(raw, separators=(",", ":")))
    model = ServiceModel(raw, service_name=service)
    return LoadedService(model, size, secrets_of(model))


class _Store:
    """Loaded services, least recently used first out past `max_bytes` (None: none goes); one read per service
    however many ask at once, at most CONCURRENT_LOADS reads in the process."""

    _loads = threading.Semaphore(CONCURRENT_LOADS)

    def __init__(self, max_bytes: int | None) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, LoadedService] = OrderedDict()
        self._lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}

    def get(self, service: str) -> LoadedService:
        """The loaded service."""
        with self._lock:
            found = self._entries.get(service)
            if found is not None:
                self._entries.move_to_end(service)
                return found
            if service not in known_services():
                raise UnknownService(f"no AWS service named {service!r}")
            loading = self._loading.setdefault(service, threading.Lock())
        with loading:
            with self._lock:
                found = self._entries.get(service)
            if found is None:
                with self._loads:
                    found = read_model(service)
                with self._lock:
                    self._entries[service] = found
                    self._loading.pop(service, None)
                    self._evict(keep=service)
            return found

    def names(self) -> list[str]:
        with self._lock:
            return list(self._entries)

    def entries(self) -> list[LoadedService]:
        with self._lock:
            return list(self._entries.values())

    def size(self) -> int:
        with self._lock:
            return sum(entry.size for entry in self._entries.values())

    def _evict(self, keep: str) -> None:
        """Drop the least recently used until they fit (under the lock); `keep`, just loaded, stays whatever its
        size."""
        if self.max_bytes is None:
            return
        total = sum(entry.size for entry in self._entries.values())
        for name in list(self._entries):
            if total <= self.max_bytes:
                break
            if name != keep:
                total -= self._entries.pop(name).size


class ModelScope(_Store):
    """One evaluation's own models: the services it calls that no lab names, dropped with it."""

    def __init__(self, max_bytes: int = SCOPE_BYTES) -> None:
        super().__init__(max_bytes)


_scope: contextvars.ContextVar[ModelScope | None] = contextvars.ContextVar("stepeval_model_scope", default=None)


class ModelCache:
    """The process's models: the pinned services shared and whole, the others in the evaluation's scope in force
    (`scoped`), or, outside any, in a cache of `max_bytes` (least recently used first out)."""

    def __init__(self, max_bytes: int = MODEL_CACHE_BYTES) -> None:
        self._pinned: set[str] = set()
        self._shared = _Store(None)
        self._unscoped = _Store(max_bytes)
        self._lock = threading.Lock()

    @property
    def max_bytes(self) -> int:
        return self._unscoped.max_bytes or 0

    def pin(self, services: Iterable[str]) -> None:
        """Share these services (once loaded, for good): the labs' files name them."""
        with self._lock:
            self._pinned.update(services)

    def pinned_names(self) -> list[str]:
        with self._lock:
            return sorted(self._pinned)

    def pinned(self, service: str) -> bool:
        with self._lock:
            return service in self._pinned

    def get(self, service: str) -> LoadedService:
        """The loaded service (UnknownService for a name botocore does not know): shared when pinned; else the
        scope's in force, or the unscoped cache's."""
        if self.pinned(service):
            return self._shared.get(service)
        scope = _scope.get()
        return (scope if scope is not None else self._unscoped).get(service)

    @contextlib.contextmanager
    def scoped(self, scope: ModelScope) -> Iterator[None]:
        """Read the services no lab names into `scope` (in this thread) until the block ends."""
        token = _scope.set(scope)
        try:
            yield
        finally:
            _scope.reset(token)

    def shared(self) -> list[LoadedService]:
        """The shared (pinned) services loaded so far."""
        return self._shared.entries()

    def unread(self) -> list[str]:
        """The shared services not read whole yet (the gateway is reading them)."""
        whole = {entry.model.service_name for entry in self._shared.entries() if entry.whole}
        return [name for name in self.pinned_names() if name in known_services() and name not in whole]

    def unpinned_bytes(self) -> int:
        """The bytes of the services held outside any evaluation (the unscoped cache)."""
        return self._unscoped.size()

    def __contains__(self, service: str) -> bool:
        scope = _scope.get()
        stores = [self._shared, scope if scope is not None else self._unscoped]
        return any(service in store.names() for store in stores)


MODELS = ModelCache()  # the process's: every gateway of it reads by the same models
