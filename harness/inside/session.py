"""The boto3 Session step modules receive: every client it makes talks to the read-only gateway, not to AWS.

The session holds no credential worth anything: clients sign with dummy keys, address
`{GATEWAY_URL}/{service}/{region}`, and send through the process's line to the gateway's unix socket
(harness/inside/link.py), never through a network; the gateway refuses non-reads and signs the rest with the
evaluation's real credentials (harness/sandbox/gateway.py). A client taken apart from its session (or made
from `boto3` directly) has no way out: the address resolves nowhere and the network has nothing on it. The
read-only guard is registered before any client exists, so a write is refused here first, with a friendlier
message than the gateway's.
Service models come from the process's shared loader; plain clients are cached per service and region.
Sessions are not thread-safe, clients are, so clients are built under a lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

import boto3
import botocore.session
from botocore import UNSIGNED
from botocore.config import Config

from harness._compat.botocore import send_through
from harness.core.botocore_models import shared_loader, warm_up
from harness.core.readonly import ReadOnlyGuard
from harness.inside.link import GatewayLink

CONNECT_TIMEOUT_S = 5
READ_TIMEOUT_S = 20
MAX_ATTEMPTS = 4
# What the worker signs with: the gateway discards the signature and signs again with the real credentials.
GATEWAY_KEY, GATEWAY_SECRET = "STEPEVALGATEWAY", "the-gateway-signs-every-request-itself"
GATEWAY_URL = "http://stepeval-gateway.invalid"  # what clients address: the path names service and region

__all__ = ["GatewaySession", "client_config", "shared_loader", "warm_up"]


def client_config(endpoint_url: str | None) -> Config:
    """Sane timeouts and botocore's standard retry mode; for an emulator or the gateway, path-style S3 and no
    host prefixes (`data.` + an IP address is no host)."""
    config = Config(
        connect_timeout=CONNECT_TIMEOUT_S,
        read_timeout=READ_TIMEOUT_S,
        retries={"mode": "standard", "total_max_attempts": MAX_ATTEMPTS},  # 4 attempts in all, not 4 retries
    )
    if endpoint_url:
        config = config.merge(Config(s3={"addressing_style": "path"}, inject_host_prefix=False))
    return config


class GatewaySession(boto3.Session):
    """The session a step module receives: every client is guarded and sends to the gateway over `link`, in
    `region`."""

    def __init__(self, link: GatewayLink, region: str, guard: ReadOnlyGuard | None = None) -> None:
        core = botocore.session.get_session()
        core.register_component("data_loader", shared_loader())
        self.guard = guard or ReadOnlyGuard()
        core.register("before-call", self.guard)
        # Unsigned: the gateway signs every request itself and would throw a signature away.
        core.set_default_client_config(client_config(GATEWAY_URL).merge(Config(signature_version=UNSIGNED)))
        core.set_credentials(GATEWAY_KEY, GATEWAY_SECRET)
        core.set_config_variable("region", region)
        super().__init__(botocore_session=core)
        self.link = link
        self._clients: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()

    def endpoint(self, service_name: str, region: str) -> str:
        """The gateway's address for `service_name` in `region`."""
        return f"{GATEWAY_URL}/{service_name}/{region}"

    def client(self, service_name: str, region_name: str | None = None, **kwargs: Any) -> Any:
        """A guarded client through the gateway; plain `client("ec2")` calls return one cached client."""
        region = region_name or self.region_name
        kwargs["endpoint_url"] = kwargs.get("endpoint_url") or self.endpoint(service_name, region)
        if any(value is not None for key, value in kwargs.items() if key != "endpoint_url") or kwargs[
            "endpoint_url"
        ] != self.endpoint(service_name, region):
            return self._linked(super().client(service_name, region_name=region, **kwargs))
        with self._lock:
            key = (service_name, region)
            if key not in self._clients:
                self._clients[key] = self._linked(super().client(service_name, region_name=region, **kwargs))
            return self._clients[key]

    def _linked(self, client: Any) -> Any:
        """The client sends over the link, whatever endpoint URL it was given."""
        config = client.meta.config
        send_through(client, self.link.http((config.connect_timeout, config.read_timeout)))
        return client

    def resource(self, service_name: str, region_name: str | None = None, **kwargs: Any) -> Any:
        """A boto3 resource whose client goes through the gateway too."""
        region = region_name or self.region_name
        kwargs["endpoint_url"] = kwargs.get("endpoint_url") or self.endpoint(service_name, region)
        return super().resource(service_name, region_name=region, **kwargs)

    def warm(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Build the clients for these (service, region) pairs ahead of the module that will ask for them."""
        for service_name, region in pairs:
            self.client(service_name, region)
