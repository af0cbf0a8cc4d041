"""The botocore models the gateway reads requests and answers by, in a cache bounded in bytes.

A model of its own per service (botocore's S3 customizations rewrite the URIs of the models clients share, so
the process's shared loader cannot be read as sent), read by a loader made for the one read and dropped after it
(botocore's loaders keep everything they ever read). The services a lab names are pinned; the others share
MODEL_CACHE_BYTES, counted as the size of each model's JSON (about a quarter of what it takes in memory), the
least recently used going first: a module that touches every service AWS has costs the time to read them, never
the memory to keep them.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field

import botocore.loaders
from botocore.model import ServiceModel

from harness.core.botocore_models import known_services
from harness.core.secret_shapes import ModelSecrets, secrets_of

MODEL_CACHE_BYTES = 16 * 1024 * 1024  # of JSON, for the services the lab does not name
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


def read_model(service: str) -> LoadedService:
    """`service`'s model as published, read by a loader of its own that is dropped after."""
    if service not in known_services():
        raise UnknownService(f"no AWS service named {service!r}")
    raw = botocore.loaders.create_loader().load_service_model(service, "service-2")
    size = len(json.dumps(raw, separators=(",", ":")))
    model = ServiceModel(raw, service_name=service)
    return LoadedService(model, size, secrets_of(model))


class ModelCache:
    """Loaded services: the pinned ones for good, the others least recently used first out past `max_bytes`."""

    def __init__(self, max_bytes: int = MODEL_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._pinned: set[str] = set()
        self._entries: OrderedDict[str, LoadedService] = OrderedDict()
        self._lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}
        self._loads = threading.Semaphore(CONCURRENT_LOADS)

    def pin(self, services: Iterable[str]) -> None:
        """Keep these services once loaded, whatever else is asked for."""
        with self._lock:
            self._pinned.update(services)

    def get(self, service: str) -> LoadedService:
        """The loaded service (UnknownService for a name botocore does not know)."""
        with self._lock:
            found = self._entries.get(service)
            if found is not None:
                self._entries.move_to_end(service)
                return found
            if service not in known_services():
                raise UnknownService(f"no AWS service named {service!r}")
            loading = self._loading.setdefault(service, threading.Lock())
        with loading:  # one read per service, however many ask at once
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

    def unpinned_bytes(self) -> int:
        with self._lock:
            return sum(entry.size for name, entry in self._entries.items() if name not in self._pinned)

    def __contains__(self, service: str) -> bool:
        with self._lock:
            return service in self._entries

    def _evict(self, keep: str) -> None:
        """Drop the least recently used unpinned services until the others fit (under the lock); `keep`, just
        loaded, stays whatever its size."""
        unpinned = [name for name in self._entries if name not in self._pinned]
        total = sum(self._entries[name].size for name in unpinned)
        for name in unpinned:
            if total <= self.max_bytes:
                break
            if name != keep:
                total -= self._entries.pop(name).size


MODELS = ModelCache()  # the process's: every gateway of it reads by the same models
