"""The HTTP front door (FastAPI): POST /v1/evaluations, /healthz, /readyz, /metrics, /openapi.json.

The event loop only parses, verifies and waits; AWS calls and worker round trips run on two thread pools (one
for STS, one per worker slot). Admission is counted on the loop: with `workers` running and `queue` waiting,
the next request is answered 429 with Retry-After instead of piling up.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from harness.core import logs
from harness.core.contract import Answer
from harness.service.evaluator import MAX_CLAIM_TRIES, Admitted, Evaluator, deadline_problem
from harness.service.metrics import CONTENT_TYPE
from harness.service.models import (
    EXAMPLE_ANSWER,
    EXAMPLE_ERROR_ANSWER,
    EXAMPLE_REQUEST,
    EvaluationAnswer,
    EvaluationRequest,
)
from harness.service.problems import Problem, ProblemBody
from harness.service.settings import ServiceSettings
from harness.store.idempotency import Abandoned

DESCRIPTION = """\
Evaluates one lab step against a learner's sandbox account, read-only, and answers pass, fail or error.

Requests are signed with [Standard Webhooks](https://www.standardwebhooks.com/) (`webhook-id`,
`webhook-timestamp`, `webhook-signature`); `webhook-id` is the idempotency key. An `error` answer (we could not
check) is still a 200: it is never a verdict on the learner. 4xx bodies name the field at fault.
"""
EXAMPLE_PROBLEM = {
    "error": {
        "status": 422,
        "code": "invalid_field",
        "field": "sandbox.account_id",
        "message": "sandbox.account_id: must be an AWS account id of 12 digits, got '1234'",
        "errors": [
            {
                "field": "sandbox.account_id",
                "message": "sandbox.account_id: must be an AWS account id of 12 digits, got '1234'",
            }
        ],
    },
    "request_id": "msg_2b1f0c7e9d",
}
WEBHOOK_HEADERS = [
    ("webhook-id", "unique message id; the idempotency key", "msg_2b1f0c7e9d"),
    ("webhook-timestamp", "Unix seconds; at most 5 minutes from our clock", "1767225600"),
    ("webhook-signature", "v1,<base64 HMAC-SHA256 of id.timestamp.body> (space-separated list)", "v1,K5oZ..."),
]


class Admission:
    """Evaluations admitted (running or waiting for a worker); touched only on the event loop."""

    def __init__(self, evaluator: Evaluator) -> None:
        settings = evaluator.settings
        self.limit = settings.workers + settings.queue
        self.in_flight = 0
        self.slots = asyncio.Semaphore(settings.workers)
        self.sts = ThreadPoolExecutor(max(4, min(32, 2 * settings.workers)), thread_name_prefix="stepeval-sts")
        self.runs = ThreadPoolExecutor(settings.workers, thread_name_prefix="stepeval-run")


async def read_body(request: Request, evaluator: Evaluator) -> bytes:
    """The raw body (signatures cover exact bytes), refused with 413 as soon as it passes the limit."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit():
        evaluator.check_size(int(declared))
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        evaluator.check_size(size)
        chunks.append(chunk)
    return b"".join(chunks)


def problem_response(evaluator: Evaluator, problem: Problem, request_id: str | None) -> JSONResponse:
    reply = evaluator.refusal(problem, request_id)
    return JSONResponse(reply.body, status_code=reply.status, headers=reply.headers)


def create_app(settings: ServiceSettings, *, evaluator: Evaluator | None = None) -> FastAPI:
    """The app; the lab is loaded now (a bad lab fails here), workers start with the server."""
    ev = evaluator or Evaluator(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.admission = Admission(ev)
        warm = threading.Thread(target=ev.start, name="stepeval-warm-up", daemon=True)
        warm.start()
        logs.log_line(event="starting", lab=ev.lab.spec.project, steps=len(ev.lab.steps), workers=settings.workers)
        try:
            yield
        finally:
            ev.close()
            app.state.admission.sts.shutdown(wait=False, cancel_futures=True)
            app.state.admission.runs.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(
        title="stepeval",
        version="1",
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.evaluator = ev

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        problem = Problem(exc.status_code, "not_found" if exc.status_code == 404 else "http", str(exc.detail))
        return JSONResponse(problem.body(), status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(Problem(422, "invalid_field", str(exc)).body(), status_code=422)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        logs.log_line(event="internal_error", error=type(exc).__name__)
        return JSONResponse(Problem(500, "internal", "internal error; nothing was evaluated").body(), status_code=500)

    @app.get("/healthz", summary="Alive, which sandbox protections are on, and the store's state")
    async def healthz() -> dict[str, Any]:
        protections = ev.protections
        sandbox = None if protections is None else protections.summary()
        body: dict[str, Any] = {"status": "ok", "sandbox": sandbox}
        if ev.records is not None:  # the shared store: "ok", or why idempotency is per instance for now
            body["store"] = ev.records.idempotency.degraded or "ok"
        return body

    @app.get("/readyz", summary="Lab loaded, workers up", responses={503: {"description": "still starting"}})
    async def readyz(request: Request) -> JSONResponse:
        admission: Admission = request.app.state.admission
        body = {
            "status": "ready" if ev.ready else "starting",
            "lab": ev.lab.spec.project,
            "steps": len(ev.lab.steps),
            "workers": ev.pool.size,
            "in_flight": admission.in_flight,
            "queue_limit": admission.limit,
            "module_problems": ev.module_problems,
        }
        return JSONResponse(body, status_code=200 if ev.ready else 503)

    @app.get("/metrics", summary="Prometheus metrics", response_class=Response)
    async def metrics() -> Response:
        return Response(ev.metrics.render(), media_type=CONTENT_TYPE)

    @app.post(
        "/v1/evaluations",
        summary="Evaluate one step",
        response_model=EvaluationAnswer,
        responses={
            200: {
                "description": "The answer: pass, fail, or error (we could not check: never a verdict)",
                "content": {
                    "application/json": {
                        "examples": {
                            "pass": {"value": EXAMPLE_ANSWER},
                            "error": {"value": EXAMPLE_ERROR_ANSWER},
                        }
                    }
                },
            },
            400: {"model": ProblemBody, "description": "the body is not JSON"},
            401: {"model": ProblemBody, "description": "missing, wrong or stale webhook signature"},
            409: {"model": ProblemBody, "description": "webhook-id reused with a different body"},
            413: {"model": ProblemBody, "description": "body over the limit"},
            415: {"model": ProblemBody, "description": "content-type is not application/json"},
            422: {
                "model": ProblemBody,
                "description": "a field is missing or wrong; `error.field` names it",
                "content": {"application/json": {"example": EXAMPLE_PROBLEM}},
            },
            429: {"model": ProblemBody, "description": "queue full: retry after Retry-After seconds"},
            503: {"model": ProblemBody, "description": "deadline passed before the evaluation could start"},
        },
    )
    async def evaluations(request: Request) -> Response:
        started = time.monotonic()
        deadline = started + settings.deadline_s
        request_id: str | None = None
        try:
            body = await read_body(request, ev)
            request_id = ev.verifier.verify(body, request.headers)
            admitted = ev.admit(body, request.headers.get("content-type"), request_id, started)
            for _ in range(MAX_CLAIM_TRIES):
                claim = ev.store.claim(request_id, admitted.fingerprint)
                if claim.owner:
                    break
                ev.conflict_or_wait(claim)
                try:
                    waiting = asyncio.shield(asyncio.wrap_future(claim.future))
                    stored = await asyncio.wait_for(waiting, max(deadline - time.monotonic(), 0))
                except Abandoned:
                    continue
                except TimeoutError:
                    raise deadline_problem("while a request with this webhook-id ran", 1) from None
                return JSONResponse(ev.replayed(admitted, stored))
            else:
                raise deadline_problem("while requests with this webhook-id kept giving up", 1)
            try:
                answer = await evaluate(request.app.state.admission, admitted, deadline)
            except BaseException:
                ev.store.abandon(request_id)
                raise
            return JSONResponse(ev.finish(admitted, answer))
        except Problem as problem:
            return problem_response(ev, problem, request_id)

    async def evaluate(admission: Admission, admitted: Admitted, deadline: float) -> Answer:
        if admission.in_flight >= admission.limit:
            raise Problem(
                429,
                "busy",
                f"{admission.in_flight} evaluations running or queued (the limit): retry after "
                f"{settings.retry_after_s} s; nothing was evaluated",
                headers={"Retry-After": str(settings.retry_after_s)},
            )
        admission.in_flight += 1
        ev.metrics.in_flight.inc()
        loop = asyncio.get_running_loop()
        try:
            reached = ev.reach_cached(admitted)  # the usual case: no STS call, no thread hop
            if reached is None:
                try:
                    reaching = loop.run_in_executor(admission.sts, ev.reach, admitted)
                    reached = await asyncio.wait_for(reaching, max(deadline - time.monotonic(), 0.01))
                except TimeoutError:
                    return ev.sandbox_error(admitted, "STS did not answer before the request's deadline")
            if isinstance(reached, Answer):
                return reached
            try:
                await asyncio.wait_for(admission.slots.acquire(), max(deadline - time.monotonic(), 0.01))
            except TimeoutError:
                raise deadline_problem("while waiting for a worker", settings.retry_after_s) from None
            try:
                return await loop.run_in_executor(admission.runs, ev.run, admitted, reached, deadline)
            finally:
                admission.slots.release()
        finally:
            admission.in_flight -= 1
            ev.metrics.in_flight.dec()

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        request_schema = EvaluationRequest.model_json_schema(ref_template="#/components/schemas/{model}")
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.update(request_schema.pop("$defs", {}))
        components["EvaluationRequest"] = request_schema
        operation = schema["paths"]["/v1/evaluations"]["post"]
        operation["requestBody"] = {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {"$ref": "#/components/schemas/EvaluationRequest"},
                    "examples": {"first step": {"value": EXAMPLE_REQUEST}},
                }
            },
        }
        operation["parameters"] = [
            {
                "name": name,
                "in": "header",
                "required": True,
                "description": text,
                "schema": {"type": "string"},
                "example": example,
            }
            for name, text, example in WEBHOOK_HEADERS
        ]
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app
