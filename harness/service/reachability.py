"""The service's own way to AWS: its credentials and its endpoint, checked with `sts:GetCallerIdentity` (read-only,
free, one call of at most a few seconds) at start, every few seconds while it fails, and whenever an evaluation
finds STS unreachable. While it fails, `/readyz` says not ready and why, and answers say kind `service`: the
operator's to fix (a wrong `--endpoint-url`, no credentials, credentials AWS does not know), never the learner's.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from typing import Any
from urllib.parse import urlsplit

from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

from harness.sandbox.unreachable import botocore_unreachable
from harness.service.clients import ClientCache

CHECK_CONFIG = Config(connect_timeout=2, read_timeout=3, retries={"mode": "standard", "total_max_attempts": 1})
FRESH_S = 2.0  # a check this recent answers for an evaluation without another call
DEFAULT_REGION = "us-east-1"
# STS refusing the caller's own credentials (not a role's trust): the service's credentials are at fault
OWN_CREDENTIAL_CODES = frozenset(
    {
        "InvalidClientTokenId",
        "UnrecognizedClientException",
        "SignatureDoesNotMatch",
        "IncompleteSignature",
        "MissingAuthenticationToken",
        "ExpiredToken",
        "ExpiredTokenException",
        "InvalidAccessKeyId",
    }
)


def shown_endpoint(url: str) -> str:
    """An endpoint URL as `/readyz` (unauthenticated) and the log show it: scheme, host, port and path, without a
    user, password, query or fragment (where a proxy's token would be)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}{parts.path}"


def own_problem(exc: ClientError | BotoCoreError, endpoint: str) -> str:
    """Why the service's own call to STS failed, for its operator."""
    if isinstance(exc, NoCredentialsError):
        return (
            "the service has no AWS credentials of its own (environment, profile, container or instance role): it"
            " cannot call sts:AssumeRole"
        )
    if isinstance(exc, ClientError):
        info = exc.response.get("Error", {})
        return (
            f"STS at {endpoint} refuses the service's own credentials: {info.get('Code', '?')}: "
            f"{info.get('Message', '')}".strip()
        )
    connect, read = CHECK_CONFIG.connect_timeout, CHECK_CONFIG.read_timeout
    why = botocore_unreachable(exc, connect_timeout_s=connect, read_timeout_s=read) or f"{type(exc).__name__}: {exc}"
    return f"STS at {endpoint} cannot be reached with the service's own credentials: {why}"


class OwnAccess:
    """The last check of the service's own access to STS: `problem` (None: it works), and when it was made. A check's
    call (connecting, then every read of the answer) ends after `total_s`; a failing one is tried again every
    `recheck_s` (the settings' aws_check_timeout_s and aws_recheck_s)."""

    def __init__(self, clients: ClientCache, region: str | None, *, total_s: float, recheck_s: float) -> None:
        self.clients = clients
        self.region = region
        self.total_s = total_s
        self.recheck_s = recheck_s
        self.problem: str | None = None
        self.checked_at: float | None = None  # time.monotonic() of the last check's end
        self._checking = threading.Lock()  # one check at a time: callers meanwhile share its outcome
        self._client: Any = None
        self._call: Future[str | None] | None = None  # the last GetCallerIdentity, ended or still waiting

    @property
    def endpoint(self) -> str:
        url = self.clients.endpoint_url
        return shown_endpoint(url) if url else f"sts.{self._region()}.amazonaws.com"

    def _region(self) -> str:
        return self.region or self.clients.configured_region() or DEFAULT_REGION

    def check(self, *, fresh_s: float = 0.0) -> str | None:
        """Call GetCallerIdentity as the service (a check ended less than `fresh_s` ago answers instead); the
        problem, or None."""
        with self._checking:
            if self.checked_at is not None and time.monotonic() - self.checked_at < fresh_s:
                return self.problem
            if self._call is None or self._call.done():  # one call at a time, however long one hangs
                self._call = Future()
                threading.Thread(
                    target=self._identity, args=(self._call,), name="stepeval-aws-call", daemon=True
                ).start()
            try:
                self.problem = self._call.result(timeout=self.total_s)
            except TimeoutError:
                self.problem = (
                    f"STS at {self.endpoint} cannot be reached with the service's own credentials: no answer within"
                    f" {self.total_s:g} s"
                )
            self.checked_at = time.monotonic()
            return self.problem

    def _identity(self, outcome: Future[str | None]) -> None:
        """GetCallerIdentity as the service, on a thread of its own (botocore's timeouts bound each read, not an
        answer trickled a byte at a time): its problem, or None, into `outcome`."""
        try:
            if self._client is None:
                self._client = self.clients.build("sts", self._region(), CHECK_CONFIG)
            self._client.get_caller_identity()
        except (ClientError, BotoCoreError) as exc:
            outcome.set_result(own_problem(exc, self.endpoint))
        except BaseException as exc:  # a bug: said by the waiting check, never lost on this thread
            outcome.set_exception(exc)
        else:
            outcome.set_result(None)

    def watch(self, stop: threading.Event) -> None:
        """Until `stop`: a failing check tried again every `recheck_s`, so readiness comes back by itself."""
        while not stop.wait(self.recheck_s):
            if self.problem is not None:
                self.check()

    def describe(self) -> dict[str, Any]:
        """What `/readyz` says of it."""
        return {"endpoint": self.endpoint, "ok": self.problem is None, "problem": self.problem}
