"""One JSON line per evaluation (and per refusal): ids, step, account, outcome, time. Never credentials,
signatures, the secret or error details (those go to the platform in the answer)."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from harness.core.contract import Answer

LOGGER_NAME = "stepeval.service"
logger = logging.getLogger(LOGGER_NAME)


def log_line(**fields: Any) -> None:
    """Emit one JSON object as the log message."""
    record = {"ts": round(time.time(), 3), **fields}
    logger.info(json.dumps(record, separators=(",", ":"), default=str))


def log_evaluation(
    *,
    request_id: str,
    step: str,
    account_id: str,
    answer: Answer,
    duration_ms: float,
    replayed: bool = False,
    lab: str | None = None,
    lab_version: str | None = None,
) -> None:
    """One line per evaluation; `lab` and `lab_version` where a service names them (it may serve several)."""
    log_line(
        event="evaluation",
        request_id=request_id,
        lab=lab,
        lab_version=lab_version,
        step=step,
        account_id=account_id,
        status=answer.status,
        error_kind=answer.error.kind if answer.error else None,
        duration_ms=round(duration_ms, 2),
        replayed=replayed,
    )


def log_refusal(*, request_id: str | None, status: int, code: str, field: str | None) -> None:
    log_line(event="refused", request_id=request_id, http_status=status, code=code, field=field)


def configure(level: str = "INFO") -> None:
    """Plain JSON lines on stderr for the service's logger; nothing from it propagates to the root logger."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.handlers[:] = [handler]
    logger.setLevel(level.upper())
    logger.propagate = False
