"""AWS Lambda: `harness.service.lambda_handler.handler`, the same evaluation as `POST /v1/evaluations`.

Two ways in:
- a Function URL or API Gateway (v1 or v2) event: the signed HTTP request, verified exactly as the service
  does; the reply is `{statusCode, headers, body}` with the same status codes and bodies;
- a direct invocation whose event is the request body itself: the caller is already authenticated by IAM
  (lambda:InvokeFunction), so there is no signature; the request id is Lambda's own (an asynchronous invoke
  retried by Lambda keeps it, so it is the idempotency key too). The reply is the answer object, or
  `{"error": {...}}` for a refused request.

Configuration is the service's (STEPEVAL_* variables); the evaluator (lab, workers) is built on the first
invocation of an execution environment and kept while it lives. One environment handles one request at a time,
so its workers are 1 unless STEPEVAL_WORKERS says otherwise (not the service's default, sized by the machine).
"""

from __future__ import annotations

import base64
import json
import os
import threading
import uuid
from typing import Any

from pydantic import ValidationError

from harness.sandbox.confine import MINIMUM
from harness.service.evaluator import Evaluator, Reply
from harness.service.problems import Problem
from harness.service.settings import ServiceSettings, settings_problems

LAMBDA_WORKERS = 1
SAFETY_MARGIN_S = 1.0  # answer this long before Lambda's own timeout would cut us off
RUNTIME_ENV = "AWS_LAMBDA_RUNTIME_API"  # set by Lambda's runtime: the function's credentials are in the environment


class SandboxRefused(RuntimeError):
    """The sandbox's minimum set does not hold here: the handler evaluates nothing (docs/service.md)."""


class SettingsRefused(RuntimeError):
    """A STEPEVAL_* variable is missing or invalid (one line each, as `stepeval serve` says them): the handler
    evaluates nothing until the function's configuration is fixed."""


_evaluator: Evaluator | None = None
_lock = threading.Lock()


def get_evaluator() -> Evaluator:
    """The environment's evaluator, built once from STEPEVAL_* variables; SettingsRefused (every invocation) when a
    variable is invalid, SandboxRefused where the sandbox's minimum set does not hold. In Lambda, the function's
    credentials then leave the environment."""
    global _evaluator
    with _lock:
        if _evaluator is None:
            from harness.core import logs

            logs.configure()
            try:
                settings = ServiceSettings()
            except ValidationError as exc:
                raise SettingsRefused("; ".join(settings_problems(exc))) from None
            if settings.workers is None:  # one request at a time here
                settings = settings.model_copy(update={"workers": LAMBDA_WORKERS})
            evaluator = Evaluator(settings)
            evaluator.start()
            protections = evaluator.pool.protections()
            logs.log_line(event="sandbox", **protections.log_fields())
            if not protections.sufficient and not settings.unsafe_no_sandbox:
                evaluator.close()
                below = [name for name in MINIMUM if name in protections.missing()]
                raise SandboxRefused(
                    f"refusing to evaluate: the sandbox's minimum set does not hold ({', '.join(below)})"
                )
            if os.environ.get(RUNTIME_ENV):
                evaluator.access.clients.hold_own_credentials()
            _evaluator = evaluator
        return _evaluator


def reset() -> None:
    """Stop the environment's workers and forget the evaluator (tests; a configuration change)."""
    global _evaluator
    with _lock:
        if _evaluator is not None:
            _evaluator.close()
        _evaluator = None


def is_http_event(event: Any) -> bool:
    """A Function URL / API Gateway event carries the raw body and headers, or at least its request context (a GET
    has no body); a direct invoke carries the body."""
    if not isinstance(event, dict):
        return False
    return "httpMethod" in event or "requestContext" in event or ("body" in event and "headers" in event)


def http_method(event: dict[str, Any]) -> str:
    """The request's method: API Gateway v1 says it at the top, Function URLs and v2 in requestContext.http."""
    context = event.get("requestContext")
    http = context.get("http") if isinstance(context, dict) else None
    method = event.get("httpMethod") or (http.get("method") if isinstance(http, dict) else None)
    return str(method or "POST").upper()


def budget_s(context: Any) -> float | None:
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    return max(remaining() / 1000 - SAFETY_MARGIN_S, 0.5) if callable(remaining) else None


def handler(event: Any, context: Any) -> dict[str, Any]:
    evaluator = get_evaluator()
    if is_http_event(event):
        method = http_method(event)
        if method != "POST":  # as the service answers GET /v1/evaluations
            path = event.get("rawPath") or event.get("path") or "/"
            problem = Problem(405, "method_not_allowed", f"{method} {path}: this path takes POST")
            return http_reply(Reply(405, problem.body(), {"allow": "POST"}))
        raw = event.get("body") or ""
        body = base64.b64decode(raw) if event.get("isBase64Encoded") else raw.encode()
        headers = {str(k).lower(): str(v) for k, v in (event.get("headers") or {}).items()}
        reply = evaluator.handle(body, headers, budget_s=budget_s(context))
        return http_reply(reply)
    request_id = getattr(context, "aws_request_id", None) or uuid.uuid4().hex
    body = json.dumps(event).encode()
    reply = evaluator.handle(
        body, {"content-type": "application/json"}, trusted_id=f"lambda-{request_id}", budget_s=budget_s(context)
    )
    return reply.body


def http_reply(reply: Reply) -> dict[str, Any]:
    return {
        "statusCode": reply.status,
        "headers": {"content-type": "application/json", **reply.headers},
        "body": json.dumps(reply.body),
        "isBase64Encoded": False,
    }
