"""Reaching the sandbox account, and only it: AssumeRole with the external id and a read-only session policy,
then `get_caller_identity` must name the requested account, else nothing runs.

Assumed credentials are cached per (role ARN, external id) until shortly before they expire, with the
caller identity they were checked against; concurrent requests for one role share a single AssumeRole.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from botocore.exceptions import BotoCoreError, ClientError

from harness.core.account import Account, Credentials
from harness.core.contract import ErrorKind
from harness.sandbox.unreachable import botocore_unreachable
from harness.service.clients import STS_CONFIG, ClientCache
from harness.service.models import AccountRef
from harness.service.reachability import FRESH_S, OWN_CREDENTIAL_CODES, OwnAccess
from harness.service.settings import ServiceSettings

DURATION_S = 900  # the shortest AssumeRole allows: a leaked credential is worth a quarter of an hour at most


# STS codes that pass: anything else refusing AssumeRole (AccessDenied: no such role, a trust policy or external id
# that does not admit us; a malformed or oversized session policy; a region STS is disabled in) is the platform's set-up
TRANSIENT_CODES = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "RequestLimitExceeded",
        "ServiceUnavailable",
        "InternalFailure",
        "InternalError",
        "IDPCommunicationError",
        "RequestTimeout",
        "RequestTimeoutException",
    }
)


class AccountRefused(Exception):
    """The sandbox could not be reached (kind `sandbox`: STS unreachable or busy, ask again), the platform's set-up
    is wrong (kind `platform`: the role cannot be assumed, or is in another account than `account_id`), or the
    service's own (kind `service`: its endpoint or its own credentials)."""

    def __init__(self, message: str, kind: ErrorKind) -> None:
        super().__init__(message)
        self.kind = kind


def refusal_kind(exc: ClientError | BotoCoreError) -> ErrorKind:
    """`sandbox` when STS did not answer or asked us to slow down (asking again may work), `service` when it refused
    the service's own credentials, else `platform`."""
    if isinstance(exc, ClientError):
        code = exc.response.get("Error", {}).get("Code")
        if code in OWN_CREDENTIAL_CODES:
            return "service"
        if code not in TRANSIENT_CODES:
            return "platform"
    return "sandbox"


@dataclass(frozen=True)
class Assumed:
    credentials: Credentials
    account_id: str
    arn: str
    expires_at: float  # time.time() seconds


def why_failed(exc: ClientError | BotoCoreError) -> str:
    """Why an STS call failed: AWS's code and message, or the endpoint, host, port and cause when it did not
    answer (as `stepeval run` says it), else botocore's words."""
    if isinstance(exc, ClientError):
        info = exc.response.get("Error", {})
        return f"{info.get('Code', '?')}: {info.get('Message', '')}".strip()
    timeouts = STS_CONFIG.connect_timeout, STS_CONFIG.read_timeout
    return botocore_unreachable(exc, connect_timeout_s=timeouts[0], read_timeout_s=timeouts[1]) or (
        f"{type(exc).__name__}: {exc}"
    )


class AccountAccess:
    """Turns a request's sandbox reference into the Account a worker gets: temporary credentials only."""

    def __init__(
        self,
        settings: ServiceSettings,
        clients: ClientCache | None = None,
        *,
        clock: Callable[[], float] = time.time,
        on_assume: Callable[[str], None] = lambda outcome: None,
    ) -> None:
        self.settings = settings
        self.clients = clients or ClientCache(settings.endpoint_url)
        self.own = OwnAccess(
            self.clients, settings.sts_region, total_s=settings.aws_check_timeout_s, recheck_s=settings.aws_recheck_s
        )
        # Reuse until this long before expiry: longer than any request may last, so nothing expires mid-run.
        self.margin_s = settings.deadline_s + 60
        self._clock = clock
        self._on_assume = on_assume
        self._cache: dict[tuple[str, str], Assumed] = {}
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()

    def open(self, ref: AccountRef) -> Account:
        """The Account for `ref`; AccountRefused when the role cannot be assumed or is in another account."""
        return self._spec(self._assumed(ref), ref)

    def open_cached(self, ref: AccountRef) -> Account | None:
        """`open(ref)` when its credentials are cached and fresh (never blocks: no STS call); None otherwise."""
        with self._lock:
            cached = self._cache.get((ref.role_arn, ref.external_id))
        if cached is None or cached.expires_at - self.margin_s <= self._clock():
            return None
        self._on_assume("cached")
        return self._spec(cached, ref)

    def _spec(self, assumed: Assumed, ref: AccountRef) -> Account:
        if assumed.account_id != ref.account_id:
            raise AccountRefused(
                f"the credentials for {ref.role_arn} belong to account {assumed.account_id}, not the requested "
                f"{ref.account_id}: refusing to evaluate (the platform's account_id or role_arn is wrong)",
                "platform",
            )
        return Account(assumed.credentials, ref.region, self.settings.endpoint_url)

    def _assumed(self, ref: AccountRef) -> Assumed:
        key = (ref.role_arn, ref.external_id)
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            cached = self._cache.get(key)
            if cached is not None and cached.expires_at - self.margin_s > self._clock():
                self._on_assume("cached")
                return cached
            try:
                assumed = self._assume(ref)
            except AccountRefused:
                self._on_assume("refused")
                raise
            self._on_assume("assumed")
            with self._lock:
                self._prune()
                self._cache[key] = assumed
            if cached is not None:
                self.clients.forget(cached.credentials)
            return assumed

    def _assume(self, ref: AccountRef) -> Assumed:
        region = self.settings.sts_region or ref.region
        session_name = f"{self.settings.role_session_prefix}-{uuid.uuid4().hex}"
        try:
            reply = self.clients.get("sts", region).assume_role(
                RoleArn=ref.role_arn,
                RoleSessionName=session_name,
                ExternalId=ref.external_id,
                DurationSeconds=DURATION_S,
                PolicyArns=[{"arn": arn} for arn in self.settings.session_policy_arns],
            )
        except (ClientError, BotoCoreError) as exc:
            raise self._refused(f"sts:AssumeRole into {ref.role_arn} failed: {why_failed(exc)}", exc) from None
        raw = reply["Credentials"]
        credentials = Credentials(raw["AccessKeyId"], raw["SecretAccessKey"], raw["SessionToken"])
        try:
            identity = self.clients.get("sts", region, credentials).get_caller_identity()
        except (ClientError, BotoCoreError) as exc:
            raise AccountRefused(
                f"sts:GetCallerIdentity as {ref.role_arn} failed: {why_failed(exc)}", refusal_kind(exc)
            ) from None
        return Assumed(credentials, identity["Account"], identity["Arn"], raw["Expiration"].timestamp())

    def _refused(self, said: str, exc: ClientError | BotoCoreError) -> AccountRefused:
        """AssumeRole's failure, of its kind; one that may be the service's own (STS unreachable, its credentials
        refused) checked with the service's own GetCallerIdentity: kind `service` when that fails too."""
        kind = refusal_kind(exc)
        if kind == "service" or (kind == "sandbox" and not isinstance(exc, ClientError)):
            problem = self.own.check(fresh_s=FRESH_S)
            if problem is not None:
                return AccountRefused(f"{said}; the service's own access to AWS fails: {problem}", "service")
        return AccountRefused(said, kind)

    def _prune(self) -> None:
        now = self._clock()
        for key in [k for k, a in self._cache.items() if a.expires_at - self.margin_s <= now]:
            del self._cache[key]
            self._locks.pop(key, None)
