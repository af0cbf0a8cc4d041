"""moto's internals that the emulator's processes rely on (harness/authoring/emulator.py), and nothing else.

Imported only in moto's own processes (it imports moto's server). Internals touched, checked against moto 5.2.5
(`make test-deps`; pinned < 5.3 in pyproject.toml; tests/_compat/test_moto.py fails when one moves):
- `moto.moto_server.werkzeug_app`: `DomainDispatcherApplication(create_backend_app)`, the WSGI app moto's server
  runs, its per-service `app_instances`, and `MotoRequestHandler`, the request handler it serves with;
- `AccountSpecificBackend.__getitem__` (a region's backend is built on its first request: patched, to build apps
  from an unbuilt backend and to hand a copy a backend built ahead), its `backend`, `service_name`, `account_id`;
- `BaseBackend.reset` (made a no-op: moto drops every backend right after), `moto_api_backend.reset()` (in
  `moto.moto_api._internal.models`: what `/moto-api/reset` does);
- `moto.moto_api._internal.mock_random`, the seeded random behind moto's ids (seed, getstate, setstate);
- `backends.list_of_moto_modules` and `responses.method_names_from_class` (cached: computed on every request),
  `moto.core.utils.get_service_model` (loaded ahead);
- `IAMBackend._init_aws_policies` (its AWS managed policies, built once per account and partition);
- `moto.cloudfront.models.Origin.__init__`, which drops an origin's `OriginAccessControlId` (kept, as AWS keeps it:
  the serializer answers an origin's `origin_access_control_id` by its name).
"""

from __future__ import annotations

import contextlib
import copy
import functools
from collections.abc import Callable, Iterable
from typing import Any

from moto import backends
from moto.backends import get_backend
from moto.core import DEFAULT_ACCOUNT_ID, responses
from moto.core.base_backend import AccountSpecificBackend, BaseBackend
from moto.core.utils import get_service_model
from moto.moto_api._internal import mock_random
from moto.moto_api._internal.models import moto_api_backend
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import WSGIRequestHandler

from harness._compat.werkzeug import KeptAliveHandler

__all__ = [
    "DEFAULT_ACCOUNT_ID",
    "build_managed_policies_once",
    "cache_request_path",
    "detached_backend",
    "has_backend",
    "keep_origin_access_controls",
    "offer_backends",
    "random_state",
    "request_handler",
    "reset_accounts",
    "seed_ids",
    "server_app",
    "set_random_state",
    "skip_rebuild_on_reset",
]


def server_app(services: Iterable[str] = ()) -> Any:
    """moto's server app (every service, routed as its server routes them), with the apps of `services` built now
    without building a backend, and the accounts left empty (as after a reset)."""
    app = DomainDispatcherApplication(create_backend_app)
    made_on_request = AccountSpecificBackend.__getitem__
    AccountSpecificBackend.__getitem__ = _unbuilt  # type: ignore[method-assign]
    try:
        for name in services:
            if name in backends.list_of_moto_modules():
                app.app_instances[name] = create_backend_app(name)  # type: ignore[arg-type]  # a name moto lists
    finally:
        AccountSpecificBackend.__getitem__ = made_on_request  # type: ignore[method-assign]
    reset_accounts()
    return app


def _unbuilt(accounts: Any, region_name: str) -> Any:
    """A backend of the service's class, not built and not kept: an app reads its URL paths, which are the class's."""
    return accounts.backend.__new__(accounts.backend)


def reset_accounts() -> None:
    """Every backend dropped, as moto's `/moto-api/reset` does."""
    moto_api_backend.reset()


def skip_rebuild_on_reset() -> None:
    """A backend's `reset()` (which empties it and builds it again, ~45 ms for EC2's AMIs) does nothing from now on:
    moto drops every backend right after a reset anyway. What subclasses release first still is."""

    def reset(self: BaseBackend) -> None:
        """Nothing: the backend is dropped right after."""

    BaseBackend.reset = reset  # type: ignore[method-assign]


def cache_request_path(app: Any) -> None:
    """What moto computes on every request, computed once: its module list (~1 ms), a response class's method names
    (~1 ms), and each built app's botocore model (EC2's: ~80 ms on its first request)."""
    modules = tuple(backends.list_of_moto_modules())
    backends.list_of_moto_modules = lambda: modules
    responses.method_names_from_class = functools.cache(responses.method_names_from_class)  # classes do not change
    for name in app.app_instances:
        with contextlib.suppress(Exception):  # a moto module named unlike botocore's service: loaded on request
            get_service_model(name)


def seed_ids(seed: int) -> None:
    """Seed the random behind moto's ids: copies seeded alike make the same ids."""
    mock_random.seed(seed)


def random_state() -> object:
    """Where moto's random is now."""
    return mock_random.getstate()


def set_random_state(state: object) -> None:
    """Put moto's random back where `random_state()` said it was."""
    mock_random.setstate(state)  # type: ignore[arg-type]


def has_backend(service: str, region: str, account: str = DEFAULT_ACCOUNT_ID) -> bool:
    """Whether `service`'s backend for `account` in `region` is built."""
    return dict.__contains__(get_backend(service)[account], region)  # type: ignore[call-overload]


def detached_backend(service: str, region: str, account: str = DEFAULT_ACCOUNT_ID) -> object:
    """`service`'s backend for `account` in `region`, built as a first request would build it, but not kept: the
    accounts stay as they were (moto's random does move on)."""
    accounts = get_backend(service)[account]  # type: ignore[call-overload]
    backend = accounts[region]
    dict.__delitem__(accounts, region)
    return backend


def offer_backends(offer: Callable[[str, str, str], object | None]) -> None:
    """From now on, before moto builds a backend on its first request, `offer(service, account, region)` may give
    one instead (None: moto builds it)."""
    made_on_request = AccountSpecificBackend.__getitem__

    def getitem(self: AccountSpecificBackend, region_name: str) -> Any:
        if not dict.__contains__(self, region_name):
            offered = offer(self.service_name, self.account_id, region_name)
            if offered is not None:
                dict.__setitem__(self, region_name, offered)
        return made_on_request(self, region_name)

    AccountSpecificBackend.__getitem__ = getitem  # type: ignore[method-assign]


def build_managed_policies_once() -> None:
    """IAM's ~1,600 AWS managed policies are built once per account and partition (~0.3 s each), not by every IAM
    backend; each backend gets shallow copies, so what one changes on a policy (its attachment count) stays its own."""
    from moto.iam.models import IAMBackend

    build = IAMBackend._init_aws_policies
    built: dict[tuple[str, str], list[Any]] = {}

    def reused(self: IAMBackend) -> list[Any]:
        key = (self.account_id, self.region_name)
        if key not in built:
            built[key] = build(self)
        return [copy.copy(policy) for policy in built[key]]

    IAMBackend._init_aws_policies = reused  # type: ignore[method-assign]


def keep_origin_access_controls() -> None:
    """A CloudFront origin keeps the `OriginAccessControlId` it was created with, as AWS keeps it (moto 5.2 drops
    it, so a distribution read back would reach its bucket through no origin access control)."""
    from moto.cloudfront.models import Origin

    made = Origin.__init__

    def init(self: Origin, origin: dict[str, Any]) -> None:
        made(self, origin)
        self.origin_access_control_id = origin.get("OriginAccessControlId") or ""  # type: ignore[attr-defined]

    Origin.__init__ = init  # type: ignore[method-assign]


@functools.cache
def request_handler() -> type[WSGIRequestHandler]:
    """moto's request handler (it keeps headers with underscores), answering on kept-alive connections."""
    return type("KeptAliveMotoHandler", (KeptAliveHandler, MotoRequestHandler), {})
