"""A boto3 Session for one account: its credentials, region and endpoint, the read-only guard, cached clients.

Service models are loaded once per process (one shared botocore loader) and clients are cached per
(credentials, region, service): a warm evaluation builds no client at all. Sessions are not thread-safe,
clients are, so clients are built under a lock and then shared.
"""

from __future__ import annotations

import copy
import threading
from functools import cache
from typing import Any

import boto3
import botocore.loaders
import botocore.session
from botocore.config import Config

from harness.account import SandboxSpec
from harness.readonly import ReadOnlyGuard

CONNECT_TIMEOUT_S = 5
READ_TIMEOUT_S = 20
MAX_ATTEMPTS = 4


GENERIC_DATA = ("endpoints", "partitions", "sdk-default-configuration", "_retry")


@cache
def shared_loader() -> botocore.loaders.Loader:
    """One loader per process, so each service model is read from disk once."""
    return botocore.loaders.create_loader()


def warm_up() -> None:
    """Read the data every client needs, whatever its service: done while a fresh worker waits for its job."""
    loader = shared_loader()
    for name in GENERIC_DATA:
        loader.load_data(name)


def client_config(endpoint_url: str | None) -> Config:
    """Sane timeouts and botocore's standard retry mode; path-style S3 for emulators."""
    config = Config(
        connect_timeout=CONNECT_TIMEOUT_S,
        read_timeout=READ_TIMEOUT_S,
        retries={"mode": "standard", "max_attempts": MAX_ATTEMPTS},
    )
    if endpoint_url:
        config = config.merge(Config(s3={"addressing_style": "path"}))
    return config


class SandboxSession(boto3.Session):
    """The session a step module receives: every client it makes is guarded, pointed at the endpoint, cached."""

    def __init__(self, spec: SandboxSpec, guard: ReadOnlyGuard) -> None:
        core = botocore.session.get_session()
        core.register_component("data_loader", shared_loader())
        core.register("before-call", guard)
        core.set_default_client_config(client_config(spec.endpoint_url))
        super().__init__(
            aws_access_key_id=spec.credentials.access_key,
            aws_secret_access_key=spec.credentials.secret_key,
            aws_session_token=spec.credentials.token,
            region_name=spec.region,
            botocore_session=core,
        )
        self.guard = guard
        self._endpoint_url = spec.endpoint_url
        self._clients: dict[tuple[str, str | None], Any] = {}
        self._pristine_events: dict[tuple[str, str | None], Any] = {}
        self._lock = threading.Lock()

    def client(self, service_name: str, region_name: str | None = None, **kwargs: Any) -> Any:  # type: ignore[override]
        """A guarded client; plain `client("ec2")` calls return one cached client per service and region."""
        if kwargs.get("endpoint_url") is None:
            kwargs["endpoint_url"] = self._endpoint_url
        cacheable = all(kwargs.get(k) is None for k in kwargs if k != "endpoint_url") and (
            kwargs["endpoint_url"] == self._endpoint_url
        )
        region = region_name or self.region_name
        with self._lock:
            if not cacheable:
                return super().client(service_name, region_name=region, **kwargs)
            key = (service_name, region)
            if key not in self._clients:
                client = super().client(service_name, region_name=region, **kwargs)
                self._clients[key] = client
                self._pristine_events[key] = copy.copy(client.meta.events)
            return self._clients[key]

    def restore_clients(self) -> None:
        """Undo event handlers an evaluation registered on cached clients, so none leaks into the next one.

        The client and its endpoint share one emitter object, so it is restored in place, not replaced.
        """
        with self._lock:
            for key, client in self._clients.items():
                pristine = copy.copy(self._pristine_events[key])
                client.meta.events._emitter.__dict__.update(pristine._emitter.__dict__)


class SandboxFactory:
    """Hands out sessions, keeping only the latest account's: a worker holds no other account's credentials."""

    def __init__(self) -> None:
        self._spec: SandboxSpec | None = None
        self._session: SandboxSession | None = None

    def open(self, spec: SandboxSpec) -> SandboxSession:
        """The session for `spec`, reused while the spec is unchanged; its guard's record starts empty."""
        if self._session is None or spec != self._spec:
            self._session = SandboxSession(spec, ReadOnlyGuard())
            self._spec = spec
        else:
            self._session.restore_clients()
        self._session.guard.refused.clear()
        return self._session
