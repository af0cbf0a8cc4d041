"""Refusals: a status code, a machine-readable code, the field at fault and a message that names it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class FieldError(BaseModel):
    """One problem with one field of the request."""

    field: str = Field(description='where, e.g. "sandbox.account_id" or "events[2].type"; "body" for all of it')
    message: str


class ProblemInfo(BaseModel):
    status: int
    code: str = Field(description="unauthorized, invalid_json, invalid_field, unknown_step, busy, ...")
    field: str | None = None
    message: str
    errors: list[FieldError] = Field(default_factory=list)


class ProblemBody(BaseModel):
    """Every refusal's body: no evaluation ran (the answer is only ever in a 200)."""

    error: ProblemInfo
    request_id: str | None = None


class Problem(Exception):
    """Raised anywhere before an evaluation starts; the front door turns it into its HTTP answer."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        errors: list[FieldError] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.errors = errors or ([FieldError(field=field, message=message)] if field else [])
        self.headers = headers or {}

    def body(self, request_id: str | None = None) -> dict[str, Any]:
        info = ProblemInfo(
            status=self.status, code=self.code, field=self.field, message=self.message, errors=self.errors
        )
        return ProblemBody(error=info, request_id=request_id).model_dump(mode="json")


def deadline_problem(what: str, retry_after_s: int) -> Problem:
    """503: the request's deadline passed at `what`, before anything was evaluated."""
    return Problem(
        503,
        "deadline",
        f"the request's deadline passed {what}; nothing was evaluated: retry later",
        headers={"Retry-After": str(retry_after_s)},
    )


def stopped_problem(retry_after_s: int) -> Problem:
    """503: the service was stopped without waiting for the request (a second Ctrl-C); no verdict was given."""
    return Problem(
        503,
        "stopping",
        "the service was stopped before it answered; no verdict was given: retry (another instance answers)",
        headers={"Retry-After": str(retry_after_s)},
    )


def show(value: Any, limit: int = 60) -> str:
    """A value for an error message, cut short: a caller's megabyte does not come back to it."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
