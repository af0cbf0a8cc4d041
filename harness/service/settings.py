"""The service's configuration: environment variables `STEPEVAL_*`, overridden by `stepeval serve` flags."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from harness.service.webhooks import secret_problem

# AWS-managed policies passed as AssumeRole session policies: the session can do at most what these allow,
# whatever the sandbox role itself grants. ViewOnlyAccess lists and describes resources; SecurityAudit reads
# their configuration (bucket policies, encryption, IAM documents). Neither reads data (object bodies, table
# items, queue messages, secrets): what Prowler and ScoutSuite ask for, and what a lab check needs.
DEFAULT_SESSION_POLICY_ARNS = (
    "arn:aws:iam::aws:policy/job-function/ViewOnlyAccess",
    "arn:aws:iam::aws:policy/SecurityAudit",
)
MANAGED_POLICY_ARN = re.compile(r"\Aarn:aws(-cn|-us-gov)?:iam::(aws|[0-9]{12}):policy/[\w+=,.@/-]+\Z", re.ASCII)


class ServiceSettings(BaseSettings):
    """Everything the service reads at start-up. Each field is also the env variable STEPEVAL_<NAME>."""

    model_config = SettingsConfigDict(env_prefix="STEPEVAL_", extra="ignore", frozen=True)

    lab: Path = Field(Path("."), description="lab directory holding specs/ and evaluation/")
    labs: Path | None = Field(
        None, description="serve every lab directly under this directory (each with specs/); `lab` is then unused"
    )
    lab_versions_kept: int = Field(
        2, ge=2, le=20, description="versions of each lab held after reloads (a request may name one of them)"
    )
    host: str = Field("127.0.0.1", description="address to listen on")
    port: int = Field(8080, ge=0, le=65535, description="TCP port (0: any free port)")
    workers: int | None = Field(
        None, ge=1, le=1024, description="evaluations running at once (default: from the machine's memory and cores)"
    )
    queue: int | None = Field(
        None, ge=0, le=10_000, description="evaluations that may wait for a process; beyond: 429 (default: workers)"
    )
    deadline_s: float = Field(60.0, gt=1, le=900, description="a request's whole budget, queue and STS included")
    retry_after_s: int = Field(2, ge=1, le=3600, description="Retry-After seconds on 429 and 503")
    max_body_bytes: int = Field(1024 * 1024, ge=1024, le=64 * 1024 * 1024, description="larger bodies get 413")
    head_timeout_s: float = Field(
        10.0, gt=0, le=300, description="for a request's head to arrive (of the connection, or the previous answer)"
    )
    body_timeout_s: float = Field(
        10.0, gt=0, le=300, description="for a request's body to arrive once it is read (past it: 408)"
    )
    max_connections: int = Field(
        1024, ge=1, le=1_000_000, description="client connections open at once; past it the oldest idle is closed"
    )
    max_connections_per_client: int = Field(
        256, ge=1, le=1_000_000, description="of them from one client address (then that address's oldest idle)"
    )
    webhook_secret: SecretStr = Field(description="whsec_... Standard Webhooks secret shared with the platform")
    idempotency_window_s: float = Field(86_400.0, ge=0, description="how long a webhook-id's answer is kept")
    idempotency_max_entries: int = Field(10_000, ge=0, description="answers kept at most (oldest go first)")
    idempotency_max_bytes: int = Field(
        64 * 1024 * 1024, ge=0, description="bytes of answers kept in memory at most, as JSON (oldest go first)"
    )
    idempotency_max_answer_bytes: int = Field(
        1024 * 1024, ge=0, description="an answer larger than this (as JSON) is not kept: a duplicate runs again"
    )
    endpoint_url: str | None = Field(None, description="send every AWS call, STS included, here (an emulator)")
    session_policy_arns: Annotated[tuple[str, ...], NoDecode] = Field(
        DEFAULT_SESSION_POLICY_ARNS, description="managed policies capping the assumed session (comma-separated)"
    )
    role_session_prefix: str = Field(
        "stepeval", pattern=r"^[A-Za-z0-9_+=,.@-]{1,20}$", description="RoleSessionName prefix"
    )
    unsafe_no_sandbox: bool = Field(
        False, description="start even where evaluations cannot be fully confined (never in production)"
    )
    sts_region: str | None = Field(None, description="region of the STS endpoint (default: the sandbox's region)")
    aws_check_timeout_s: float = Field(
        10.0, gt=0, le=300, description="the service's own check of STS (GetCallerIdentity): its whole call at most"
    )
    aws_recheck_s: float = Field(5.0, gt=0, le=3600, description="how often a failing check of its own is tried again")
    store_url: str | None = Field(None, description="record store: sqlite:///file.db or postgresql://... (none: off)")
    store_max_age_days: float = Field(90.0, gt=0, description="this lab's recorded evaluations kept this many days")
    store_max_evaluations: int = Field(100_000, ge=1, description="and at most this many of them (newest kept)")

    @field_validator("webhook_secret")
    @classmethod
    def _secret(cls, value: SecretStr) -> SecretStr:
        problem = secret_problem(value.get_secret_value())
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("session_policy_arns", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("session_policy_arns")
    @classmethod
    def _policies(cls, value: tuple[str, ...]) -> tuple[str, ...]:

        if not 1 <= len(value) <= 10:
            raise ValueError("give 1 to 10 managed policy ARNs (AssumeRole accepts at most 10)")
        for arn in value:
            if not MANAGED_POLICY_ARN.match(arn):
                raise ValueError(f"{arn!r} is not a managed policy ARN")
        return value

    @field_validator("endpoint_url")
    @classmethod
    def _endpoint(cls, value: str | None) -> str | None:
        from harness.core.credentials import check_endpoint_url
        from harness.core.errors import BadInput

        if value:
            try:
                check_endpoint_url(value)
            except BadInput as exc:
                raise ValueError(str(exc).removeprefix("--endpoint-url ")) from None
        return value or None


FLAG_NAMES = {"deadline_s": "--deadline", "store_url": "--store"}  # the rest: --name-with-dashes


def settings_problems(exc: ValidationError, flags: frozenset[str] = frozenset()) -> list[str]:
    """One line per invalid setting, naming the flag it came from (in `flags`) or else its STEPEVAL_ variable once,
    then what is wrong (never a value of the secret)."""
    lines = []
    for err in exc.errors():
        name = ".".join(str(p) for p in err["loc"])
        where = FLAG_NAMES.get(name, f"--{name.replace('_', '-')}") if name in flags else f"STEPEVAL_{name.upper()}"
        message = "is required" if err["type"] == "missing" else err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing" and name == "webhook_secret":
            message += " (the secret shared with the platform: make one with stepeval sign --new-secret)"
        lines.append(f"{where}: {message}")
    return lines
