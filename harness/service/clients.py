"""boto3 clients for the service's own calls (STS), cached per (credentials, region, service).

Building a client costs milliseconds to hundreds of them; a cached one costs nothing. botocore sessions are
not thread-safe and clients are, so clients are built under a lock and then shared. The service's own
credentials come from the standard chain (environment, profile, container or instance role).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Any

import botocore.session
from botocore.config import Config

from harness.core.account import Credentials
from harness.inside.session import shared_loader

# The service's own secrets where a platform puts them in its environment (Lambda: the role's credentials)
CREDENTIAL_ENV = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN")
STS_CONFIG = Config(connect_timeout=3, read_timeout=10, retries={"mode": "standard", "max_attempts": 3})


class ClientCache:
    """Clients keyed by (access key, region, service); `None` credentials mean the service's own (the chain)."""

    def __init__(self, endpoint_url: str | None, max_size: int = 512) -> None:
        self.endpoint_url = endpoint_url
        self.max_size = max_size
        self._core = botocore.session.get_session()
        self._core.register_component("data_loader", shared_loader())
        self._clients: OrderedDict[tuple[str | None, str, str], Any] = OrderedDict()
        self._lock = threading.Lock()
        self.built = 0

    def hold_own_credentials(self) -> None:
        """Resolve the service's own credentials now, into this cache's session, and take them out of the process's
        environment: nothing it starts inherits them (the evaluations' template is started with a whitelisted
        environment anyway; the process is non-dumpable, so no module reads /proc/<pid>/environ)."""
        self._core.get_credentials()
        for name in CREDENTIAL_ENV:
            os.environ.pop(name, None)

    def configured_region(self) -> str | None:
        """The region the service's own configuration names (AWS_REGION, AWS_DEFAULT_REGION, a profile), if any."""
        region = self._core.get_config_variable("region")
        return region if isinstance(region, str) and region else None

    def build(self, service: str, region: str, config: Config) -> Any:
        """A client with the service's own credentials and `config`, not cached (its caller keeps it)."""
        with self._lock:
            self.built += 1
            return self._core.create_client(service, region_name=region, endpoint_url=self.endpoint_url, config=config)

    def get(self, service: str, region: str, credentials: Credentials | None = None) -> Any:
        key = (credentials.access_key if credentials else None, region, service)
        with self._lock:
            client = self._clients.get(key)
            if client is not None:
                self._clients.move_to_end(key)
                return client
            extra = {}
            if credentials is not None:
                extra = {
                    "aws_access_key_id": credentials.access_key,
                    "aws_secret_access_key": credentials.secret_key,
                    "aws_session_token": credentials.token,
                }
            client = self._core.create_client(
                service, region_name=region, endpoint_url=self.endpoint_url, config=STS_CONFIG, **extra
            )
            self.built += 1
            self._clients[key] = client
            while len(self._clients) > self.max_size:
                self._clients.popitem(last=False)
            return client

    def forget(self, credentials: Credentials) -> None:
        """Drop every client made with these credentials (they expired)."""
        with self._lock:
            for key in [k for k in self._clients if k[0] == credentials.access_key]:
                del self._clients[key]
