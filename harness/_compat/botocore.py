"""botocore's internals that stepeval relies on, and nothing else: every caller goes through these functions.

Internals touched (checked against botocore 1.43.125 and 1.44.8 by `make test-deps`; tests/_compat/test_botocore.py
fails when one moves):
- `BaseClient._endpoint.http_session`: what a client's Endpoint sends each request with, an object with
  `send(AWSPreparedRequest) -> AWSResponse` and `close()`. The evaluation process's clients send over the gateway
  link (harness/inside/session.py); the template's rehearsals answer in-process (harness/inside/rehearsal.py).
- `botocore.session.create_loader`: the name a Session calls to make its data loader (imported there from
  botocore.loaders); moto's processes replace it with a cached one (harness/authoring/emulator.py).
- which data files every client loads, whatever its service (CLIENT_DATA, `_retry` among them): read ahead by a
  worker waiting for its job (harness/core/botocore_models.py).
- `JSONFileLoader._load_file(full_path, open_method)`: how botocore's loader reads one data file (its objects as
  OrderedDicts); `PlainJSONFileLoader` reads them as dicts (harness/core/botocore_models.py).
- `ServiceModel._instance_cache`: where a model keeps what its `instance_cache` methods made (each operation's
  model): counted by the gateway's `shared_state`, which must not grow with what an evaluation asks
  (harness/sandbox/gateway.py).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from typing import Any, Protocol

import botocore.loaders
import botocore.session
from botocore.awsrequest import AWSPreparedRequest, AWSResponse

CLIENT_DATA = ("endpoints", "partitions", "sdk-default-configuration", "_retry")
"""The data files botocore loads for a client of any service (the session's endpoints and defaults, the client's
partitions and legacy retry rules)."""


class Sender(Protocol):
    """What an Endpoint sends with (botocore's URLLib3Session, or ours)."""

    def send(self, request: AWSPreparedRequest) -> AWSResponse: ...

    def close(self) -> None: ...


def sender(client: Any) -> Sender:
    """What `client` sends its requests with."""
    return client._endpoint.http_session


def send_through(client: Any, new: Sender) -> Sender:
    """Make `client` send every request with `new`, whatever its endpoint URL; what it sent with before."""
    endpoint = client._endpoint
    previous, endpoint.http_session = endpoint.http_session, new
    return previous


def share_one_loader() -> None:
    """Every botocore session made in this process from now on reads its data through one loader (a new loader
    parses endpoints.json again: ~50 ms per session)."""
    shared = functools.cache(botocore.loaders.create_loader)
    botocore.loaders.create_loader = shared
    botocore.session.create_loader = shared


Prune = Callable[[str, Any], Any]
"""What a loader does to a data file it read (its path, its content) before botocore sees it."""


class PlainJSONFileLoader(botocore.loaders.JSONFileLoader):
    """botocore's data files read as dicts, not OrderedDicts (dicts keep their order too): EC2's model takes 9.1 MiB
    so, 13.8 as OrderedDicts, and every evaluation process forked from the template copies the page tables of what
    the template holds at its fork and frees them at its end. `prune`, if given, is applied to each file read."""

    def __init__(self, prune: Prune | None = None) -> None:
        super().__init__()
        self._prune = prune

    def _load_file(self, full_path: str, open_method: Any) -> Any:
        if not os.path.isfile(full_path):
            return None
        with open_method(full_path, "rb") as fp:
            payload = fp.read().decode("utf-8")
        data = json.loads(payload)
        return self._prune(full_path, data) if self._prune is not None else data


def create_loader(prune: Prune | None = None) -> botocore.loaders.Loader:
    """botocore's default loader (its default search paths), reading its data files as dicts (through `prune`)."""
    return botocore.loaders.Loader(file_loader=PlainJSONFileLoader(prune))


def cached_by(model: Any) -> int:
    """How many answers a botocore model keeps from its cached methods (`operation_model` and the like)."""
    return len(model._instance_cache)
