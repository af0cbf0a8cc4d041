"""The boto3 Session step modules receive: one per worker, pointed at each evaluation's account in turn.

A worker builds one botocore session for its life: the read-only guard registered once, before any client
exists, service models read once (one shared loader), the default client config. Each evaluation's account
is applied per client: clients are built with the evaluation's explicit credentials, region and endpoint,
and cached per (credentials, endpoint, region, service). Only the current account's clients are kept: when
the credentials (or the endpoint) change, the previous account's clients are dropped, so a worker holds no
other account's credentials. Sessions are not thread-safe, clients are, so clients are built under a lock.

Switching accounts therefore costs only the clients (botocore builds a new client class per client, even
within one session), not a new session, its handler registry and its config.
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

from harness.account import Credentials, SandboxSpec
from harness.readonly import ReadOnlyGuard

CONNECT_TIMEOUT_S = 5
READ_TIMEOUT_S = 20
MAX_ATTEMPTS = 4


GENERIC_DATA = ("endpoints", "partitions", "sdk-default-configuration", "_retry")
CREDENTIAL_KWARGS = ("aws_access_key_id", "aws_secret_access_key", "aws_session_token", "aws_account_id")


@cache
def shared_loader() -> botocore.loaders.Loader:
    """One loader per process, so each service model is read from disk once."""
    return botocore.loaders.create_loader()


def warm_up() -> None:
    """Read the data every client needs, whatever its service: done while a fresh worker waits for its job."""
    loader = shared_loader()
    for name in GENERIC_DATA:
        loader.load_data(name)


_warmed: set[tuple[str, str]] = set()


def warm_clients(pairs: list[tuple[str, str]]) -> None:
    """Build (and drop) a client per (service, region) not seen yet: their models stay in the shared loader."""
    fresh = [pair for pair in pairs if pair not in _warmed]
    if not fresh:
        return
    known = set(shared_loader().list_available_services("service-2"))
    session = SandboxSession()
    for service, region in fresh:
        _warmed.add((service, region))
        if service in known:
            session.client(service, region_name=region, aws_access_key_id="x", aws_secret_access_key="x")


def client_config(endpoint_url: str | None) -> Config:
    """Sane timeouts and botocore's standard retry mode; path-style S3 for emulators."""
    config = Config(
        connect_timeout=CONNECT_TIMEOUT_S,
        read_timeout=READ_TIMEOUT_S,
        retries={"mode": "standard", "total_max_attempts": MAX_ATTEMPTS},  # 4 attempts in all, not 4 retries
    )
    if endpoint_url:
        config = config.merge(Config(s3={"addressing_style": "path"}))
    return config


def _changed(events: Any, pristine: Any) -> bool:
    """Whether handlers were registered or unregistered since `pristine` was copied (tens of microseconds)."""
    live, kept = events._emitter, pristine._emitter
    return kept._handlers._root != live._handlers._root or kept._unique_id_handlers != live._unique_id_handlers


def _restore_emitter(events: Any, pristine: Any) -> None:
    """Put an emitter back as `pristine` was, in place: clients, endpoints and factories share the object."""
    if _changed(events, pristine):
        events._emitter.__dict__.update(copy.copy(pristine)._emitter.__dict__)


class SandboxSession(boto3.Session):
    """The session a step module receives: every client it makes is guarded, pointed at the endpoint, cached.

    One per worker: `begin(spec)` points it at each evaluation's account (credentials, region, endpoint).
    """

    def __init__(self, spec: SandboxSpec | None = None, guard: ReadOnlyGuard | None = None) -> None:
        core = botocore.session.get_session()
        core.register_component("data_loader", shared_loader())
        self.guard = guard or ReadOnlyGuard()
        core.register("before-call", self.guard)
        core.set_default_client_config(client_config(None))
        super().__init__(botocore_session=core)
        self._pristine_session_events = copy.copy(self.events)
        self._credentials: Credentials | None = None
        self._endpoint_url: str | None = None
        self._clients: dict[tuple[str, str | None], Any] = {}
        self._pristine_events: dict[tuple[str, str | None], Any] = {}
        self._tainted: set[tuple[str, str | None]] = set()
        self._lock = threading.Lock()
        if spec is not None:
            self.begin(spec)

    def begin(self, spec: SandboxSpec) -> None:
        """Start an evaluation in `spec`'s account: undo the last one's handlers, apply the account, clear refusals.

        Another account's (or endpoint's) cached clients are dropped, not kept.
        """
        with self._lock:
            if (spec.credentials, spec.endpoint_url) != (self._credentials, self._endpoint_url):
                self._clients.clear()
                self._pristine_events.clear()
                self._tainted.clear()
                self._credentials, self._endpoint_url = spec.credentials, spec.endpoint_url
            core = self._session
            # set on every evaluation, not only on a switch: the last module may have changed them
            core.set_credentials(spec.credentials.access_key, spec.credentials.secret_key, spec.credentials.token)
            core.set_config_variable("region", spec.region)
            core.set_default_client_config(client_config(spec.endpoint_url))
        self.restore_clients()
        self.guard.refused.clear()

    def client(self, service_name: str, region_name: str | None = None, **kwargs: Any) -> Any:  # type: ignore[override]
        """A guarded client; plain `client("ec2")` calls return one cached client per service and region.

        Unless the caller passes credentials of its own, the client signs with the evaluation's credentials.
        """
        if kwargs.get("endpoint_url") is None:
            kwargs["endpoint_url"] = self._endpoint_url
        own_credentials = any(kwargs.get(k) is not None for k in CREDENTIAL_KWARGS)
        cacheable = not own_credentials and (
            all(kwargs.get(k) is None for k in kwargs if k != "endpoint_url")
            and kwargs["endpoint_url"] == self._endpoint_url
        )
        region = region_name or self.region_name
        with self._lock:
            credentials = self._credentials
            if not own_credentials and credentials is not None:
                kwargs.update(
                    aws_access_key_id=credentials.access_key,
                    aws_secret_access_key=credentials.secret_key,
                    aws_session_token=credentials.token,
                )
            if not cacheable:
                return super().client(service_name, region_name=region, **kwargs)
            key = (service_name, region)
            if key not in self._clients:
                client = super().client(service_name, region_name=region, **kwargs)
                self._clients[key] = client
                self._pristine_events[key] = copy.copy(client.meta.events)
                if _changed(self.events, self._pristine_session_events):
                    self._tainted.add(key)  # it copied this evaluation's session handlers: not kept past it
            return self._clients[key]

    def cached_clients(self) -> list[tuple[str, str]]:
        """The (service, region) of each client the evaluation used: the pool warms them in the template."""
        with self._lock:
            return [(service, region) for service, region in self._clients if region]

    def restore_clients(self) -> None:
        """Undo event handlers an evaluation registered on the session or its cached clients.

        So none leaks into the next evaluation (whatever its account). Each emitter is shared with the
        client's endpoint (or the session's resource factory), so it is restored in place, not replaced.
        A client made while the session carried an evaluation's handlers inherited them: it is dropped.
        Code that rewrites botocore's internals can defeat this (the guard is a safety net, not the boundary).
        """
        with self._lock:
            _restore_emitter(self.events, self._pristine_session_events)
            for key in self._tainted:
                del self._clients[key], self._pristine_events[key]
            self._tainted.clear()
            for key, client in self._clients.items():
                _restore_emitter(client.meta.events, self._pristine_events[key])


class SandboxFactory:
    """Hands out the worker's one session, pointed at each evaluation's account in turn.

    The session (guard, loader, handlers, config) is built once, here, before the first job arrives.
    """

    def __init__(self) -> None:
        self._session = SandboxSession()

    def open(self, spec: SandboxSpec) -> SandboxSession:
        """The session in `spec`'s account; the last evaluation's handlers undone, its guard's record empty."""
        self._session.begin(spec)
        return self._session
