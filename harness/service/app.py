"""The HTTP front door (FastAPI): POST /v1/evaluations, /healthz, /readyz, /metrics, /openapi.json.

The event loop only parses, verifies and waits; AWS calls and worker round trips run on two thread pools (one
for STS, one per worker slot). Admission is counted on the loop: with `workers` running and `queue` waiting (by
default sized by the machine: harness/sandbox/capacity.py), the next request is answered 429 with Retry-After
instead of piling up.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import signal
import threading
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager, suppress
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from harness.core import logs
from harness.core.account import Account
from harness.core.contract import Answer
from harness.service.claims import ClaimLoop
from harness.service.evaluator import Admitted, Evaluator
from harness.service.metrics import CONTENT_TYPE
from harness.service.models import (
    EXAMPLE_ANSWER,
    EXAMPLE_ERROR_ANSWER,
    EXAMPLE_REQUEST,
    EvaluationAnswer,
    EvaluationRequest,
    check_reload_body,
)
from harness.service.problems import Problem, ProblemBody, deadline_problem, stopped_problem
from harness.service.settings import ServiceSettings

DESCRIPTION = """\
Evaluates one lab step against a learner's sandbox account, read-only, and answers pass, fail, pending
(AWS is still at work: ask again after `retry_after_s`) or error.

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


BODIES_BYTES = 4 * 1024 * 1024  # of request bodies being read at once (their number: this over the body limit)
BODY_WAIT_S = 1.0  # for a turn to read a body
RELOAD_WAIT_S = 300.0  # for a reload with the same webhook-id to end


class Admission:
    """Evaluations admitted (running or waiting for a worker); touched only on the event loop."""

    def __init__(self, evaluator: Evaluator) -> None:
        capacity = evaluator.capacity
        self.workers = capacity.workers
        self.limit = capacity.limit
        self.retry_after_s = evaluator.settings.retry_after_s
        self.in_flight = 0
        self.running = 0
        self.gauge = evaluator.metrics.in_flight
        self.slots = asyncio.Semaphore(capacity.workers)
        self.reading = asyncio.Semaphore(max(1, BODIES_BYTES // evaluator.settings.max_body_bytes))
        self.sts = ThreadPoolExecutor(max(4, min(32, 2 * capacity.workers)), thread_name_prefix="stepeval-sts")
        self.runs = ThreadPoolExecutor(capacity.workers, thread_name_prefix="stepeval-run")

    @contextmanager
    def admitted(self) -> Iterator[None]:
        """One more evaluation in flight while inside; 429 with Retry-After when the limit already is."""
        if self.in_flight >= self.limit:
            raise Problem(
                429,
                "busy",
                f"{self.in_flight} evaluations running or waiting (the limit: {self.workers} running, "
                f"{self.limit - self.workers} waiting): retry after "
                f"{self.retry_after_s} s; nothing was evaluated",
                headers={"Retry-After": str(self.retry_after_s)},
            )
        self.in_flight += 1
        self.gauge.inc()
        try:
            yield
        finally:
            self.in_flight -= 1
            self.gauge.dec()

    def close(self) -> None:
        self.sts.shutdown(wait=False, cancel_futures=True)
        self.runs.shutdown(wait=False, cancel_futures=True)


def evaluator_of(request: Request) -> Evaluator:
    """The app's evaluator (read from its state: a FastAPI dependency would be solved again at every request)."""
    return request.app.state.evaluator


def admission_of(request: Request) -> Admission:
    """The app's admission, made at start-up."""
    return request.app.state.admission


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """At start: admission, the workers warming up on a thread of their own; at the end: both stopped."""
    ev: Evaluator = app.state.evaluator
    app.state.admission = Admission(ev)
    warm = threading.Thread(target=ev.start, name="stepeval-warm-up", daemon=True)
    warm.start()
    labs = {served["lab"]: served["version"] for served in ev.catalog.describe()}
    logs.log_line(event="starting", labs=labs, **ev.capacity.describe())
    reload_on_hangup(ev)
    try:
        yield
    finally:
        abandoned = app.state.admission.in_flight  # still unanswered when the drain limit ran out
        ev.close()
        app.state.admission.close()
        logs.log_line(event="stopped", abandoned=abandoned)


def reload_on_hangup(ev: Evaluator) -> None:
    """SIGHUP reloads the labs, on a thread of its own (the event loop keeps answering); where the loop cannot take
    signals (not the main thread: an app in a test), nothing."""
    loop = asyncio.get_running_loop()

    def hangup() -> None:
        threading.Thread(target=ev.reload, args=("sighup",), name="stepeval-reload", daemon=True).start()

    with suppress(ValueError, RuntimeError, NotImplementedError):
        loop.add_signal_handler(signal.SIGHUP, hangup)


# -- refusals ------------------------------------------------------------------------------------------------------


HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}  # any other refusal of the framework's: `http`


async def http_error(request: Request, exc: Exception) -> JSONResponse:
    """The framework's own refusals in the problem body, in our words: no such path (404), a method the path does
    not take (405, naming those it does, as the Allow header does), any other status as `http`."""
    assert isinstance(exc, StarletteHTTPException)  # registered for it alone (Starlette types handlers by Exception)
    headers = getattr(exc, "headers", None) or {}
    where = f"{request.method} {request.url.path}"
    if exc.status_code == 404:
        message = f"{where}: no such path (docs/service.md lists the paths)"
    elif exc.status_code == 405:
        message = f"{where}: this path takes {headers.get('allow') or headers.get('Allow') or 'other methods'}"
    else:
        message = f"{where}: {exc.detail}"
    problem = Problem(exc.status_code, HTTP_CODES.get(exc.status_code, "http"), message)
    return JSONResponse(problem.body(), status_code=exc.status_code, headers=headers or None)


async def validation_error(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse(Problem(422, "invalid_field", str(exc)).body(), status_code=422)


async def unexpected(request: Request, exc: Exception) -> JSONResponse:
    """A bug: logged by its type only, answered 500 in the problem body, never a traceback."""
    logs.log_line(event="internal_error", error=type(exc).__name__)
    return JSONResponse(Problem(500, "internal", "internal error; nothing was evaluated").body(), status_code=500)


def add_problem_handlers(app: FastAPI) -> None:
    """Every refusal the framework makes answers in the problem body (a JSON `error`)."""
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(Exception, unexpected)


def problem_response(evaluator: Evaluator, problem: Problem, request_id: str | None) -> JSONResponse:
    reply = evaluator.refusal(problem, request_id)
    return JSONResponse(reply.body, status_code=reply.status, headers=reply.headers)


# -- probes --------------------------------------------------------------------------------------------------------


async def healthz(request: Request) -> dict[str, Any]:
    ev = evaluator_of(request)
    protections = ev.protections
    sandbox = None if protections is None else protections.summary()
    body: dict[str, Any] = {"status": "ok", "sandbox": sandbox}
    if ev.records is not None:  # the shared store: "ok", or why idempotency is per instance for now
        body["store"] = ev.records.idempotency.degraded or "ok"
    return body


async def readyz(request: Request) -> JSONResponse:
    ev, admission = evaluator_of(request), admission_of(request)
    labs, degraded, aws = ev.catalog.describe(), ev.catalog.degraded(), ev.access.own.describe()
    status = "starting" if not ev.ready else "degraded" if degraded or not aws["ok"] else "ready"
    body = {
        "status": status,
        "lab": labs[0]["lab"] if len(labs) == 1 else None,
        "steps": sum(lab["steps"] for lab in labs),
        "workers": admission.workers,
        "queue_limit": admission.limit - admission.workers,
        "admission_limit": admission.limit,
        "in_flight": admission.in_flight,
        "running": admission.running,
        "waiting": admission.in_flight - admission.running,
        "sized_by": ev.capacity.basis,
        "measured_mib_per_evaluation": None if ev.measured_mib is None else round(ev.measured_mib, 1),
        "module_problems": ev.module_problems,
        "labs": labs,
        "lab_problems": ev.catalog.problems,
        "reloaded_at": ev.catalog.reloaded_at,
        "aws": aws,
    }
    return JSONResponse(body, status_code=200 if status == "ready" else 503)


async def metrics(request: Request) -> Response:
    return Response(evaluator_of(request).metrics.render(), media_type=CONTENT_TYPE)


def add_probes(app: FastAPI) -> None:
    """GET /healthz, /readyz and /metrics (on the app itself: FastAPI matches an included APIRouter's routes
    through one more level at every request)."""
    app.add_api_route(
        "/healthz", healthz, methods=["GET"], summary="Alive, which sandbox protections are on, and the store's state"
    )
    app.add_api_route(
        "/readyz",
        readyz,
        methods=["GET"],
        summary="Labs loaded, workers up",
        responses={
            503: {
                "description": "still starting, a lab directory deployed with the service is not served, or the"
                " service cannot reach STS with its own credentials"
            }
        },
    )
    app.add_api_route("/metrics", metrics, methods=["GET"], summary="Prometheus metrics", response_class=Response)


# -- evaluations ---------------------------------------------------------------------------------------------------

EVALUATION_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The answer: pass, fail, pending (ask again) or error (we could not check: never a verdict)",
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
    408: {"model": ProblemBody, "description": "the body did not arrive in time"},
    413: {"model": ProblemBody, "description": "body over the limit"},
    415: {"model": ProblemBody, "description": "content-type is not application/json"},
    422: {
        "model": ProblemBody,
        "description": "a field is missing or wrong; `error.field` names it",
        "content": {"application/json": {"example": EXAMPLE_PROBLEM}},
    },
    429: {"model": ProblemBody, "description": "queue full: retry after Retry-After seconds"},
    503: {
        "model": ProblemBody,
        "description": "deadline passed before the evaluation could start, or too many bodies being read",
    },
}


async def evaluations(request: Request) -> Response:
    # verify, validate, claim the webhook-id (or replay its answer), evaluate, answer; a Problem otherwise
    ev = evaluator_of(request)
    started = time.monotonic()
    deadline = started + ev.settings.deadline_s
    request_id: str | None = None
    try:
        body = await read_body(request, ev, admission_of(request).reading)
        request_id = ev.verifier.verify(body, request.headers)
        admitted = ev.admit(body, request.headers.get("content-type"), request_id, started)
        try:
            return await evaluate_admitted(ev, admission_of(request), admitted, deadline)
        finally:
            ev.release(admitted)
    except Problem as problem:
        return problem_response(ev, problem, request_id)
    except asyncio.CancelledError:  # a forced stop (a second Ctrl-C): the service closed, then cancelled it
        if not ev.stopped:
            raise
        return problem_response(ev, stopped_problem(ev.settings.retry_after_s), request_id)


async def evaluate_admitted(ev: Evaluator, admission: Admission, admitted: Admitted, deadline: float) -> Response:
    """The admitted request's answer: the one stored for its webhook-id, or a new evaluation's."""
    claims = ev.claims(admitted, deadline)
    for holder in claims.holders():
        await claims.wait_async(holder)
    if claims.stored is not None:
        return JSONResponse(ev.replayed(admitted, claims.stored))
    with claims.evaluating():
        answer = await answer_admitted(ev, admission, admitted, deadline)
    return JSONResponse(ev.finish(admitted, answer))


async def reload_labs(request: Request) -> Response:
    # signed like a hook; the labs read again on a thread, answered when done
    ev = evaluator_of(request)
    request_id: str | None = None
    try:
        body = await read_body(request, ev, admission_of(request).reading)
        request_id = ev.verifier.verify(body, request.headers)
        check_reload_body(body)
        claims = ClaimLoop(
            ev.reload_ids, request_id, hashlib.sha256(body).hexdigest(), time.monotonic() + RELOAD_WAIT_S
        )
        for holder in claims.holders():  # the same webhook-id again (a retry, a replay): that reload's answer
            await claims.wait_async(holder)
        if claims.stored is not None:
            logs.log_line(event="reload_replayed", request_id=request_id)
            return JSONResponse(claims.stored)
        with claims.evaluating():
            outcome = await asyncio.get_running_loop().run_in_executor(None, ev.reload, "admin")
        answer = {**outcome, "request_id": request_id}
        ev.reload_ids.complete(request_id, answer)
        return JSONResponse(answer)
    except Problem as problem:
        return problem_response(ev, problem, request_id)


def add_admin(app: FastAPI) -> None:
    """POST /v1/admin/reload: the labs read again, as on SIGHUP."""
    app.add_api_route(
        "/v1/admin/reload",
        reload_labs,
        methods=["POST"],
        summary="Read the lab directories again (signed like a hook)",
        responses={
            400: {"model": ProblemBody, "description": "the body is neither empty nor JSON"},
            401: {"model": ProblemBody, "description": "missing, wrong or stale webhook signature"},
            422: {"model": ProblemBody, "description": "the body holds a field: the reload takes none"},
        },
    )


def add_evaluations(app: FastAPI) -> None:
    """POST /v1/evaluations."""
    app.add_api_route(
        "/v1/evaluations",
        evaluations,
        methods=["POST"],
        summary="Evaluate one step",
        response_model=EvaluationAnswer,
        responses=EVALUATION_RESPONSES,
    )


async def read_body(request: Request, evaluator: Evaluator, reading: asyncio.Semaphore) -> bytes:
    """The raw body (signatures cover exact bytes), refused with 413 as soon as it passes the limit, read by one of
    a bounded number of readers (503 when none is free within BODY_WAIT_S: unsigned bodies cannot pile up before
    their signatures are checked) and within the settings' body_timeout_s (408 for a client that stalls)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit():
        evaluator.check_size(int(declared))
    try:
        async with asyncio.timeout(BODY_WAIT_S):
            await reading.acquire()
    except TimeoutError:
        retry = str(evaluator.settings.retry_after_s)
        raise Problem(
            503, "busy", f"body: too many bodies being read at once: retry after {retry} s", field="body",
            headers={"Retry-After": retry},
        ) from None  # fmt: skip
    chunks, size, within_s = [], 0, evaluator.settings.body_timeout_s
    try:
        async with asyncio.timeout(within_s):
            async for chunk in request.stream():
                size += len(chunk)
                evaluator.check_size(size)
                chunks.append(chunk)
    except TimeoutError:
        # the connection ends with this answer: the rest of the body would be read as the next request's head
        raise Problem(
            408, "timeout", f"body: not received within {within_s:g} s", field="body", headers={"Connection": "close"}
        ) from None
    finally:
        reading.release()
    return b"".join(chunks)


async def answer_admitted(ev: Evaluator, admission: Admission, admitted: Admitted, deadline: float) -> Answer:
    """The admitted request evaluated: its account reached, then its step run on a worker; 429 when full."""
    with admission.admitted():
        reached = await account_for(ev, admission, admitted, deadline)
        if isinstance(reached, Answer):
            return reached
        return await run_on_worker(ev, admission, admitted, reached, deadline)


async def account_for(ev: Evaluator, admission: Admission, admitted: Admitted, deadline: float) -> Account | Answer:
    """The sandbox's credentials: cached (the usual case: no STS call, no thread hop), else from STS on its
    threads; an `error` answer when STS refuses or does not answer before the deadline."""
    reached = ev.reach_cached(admitted)
    if reached is not None:
        return reached
    try:
        reaching = asyncio.get_running_loop().run_in_executor(admission.sts, ev.reach, admitted)
        return await asyncio.wait_for(reaching, max(deadline - time.monotonic(), 0.01))
    except TimeoutError:
        return ev.sandbox_error(admitted, "STS did not answer before the request's deadline")


async def run_on_worker(
    ev: Evaluator, admission: Admission, admitted: Admitted, sandbox: Account, deadline: float
) -> Answer:
    """The step run once a worker slot is free (503 if none is before the deadline)."""
    try:
        await asyncio.wait_for(admission.slots.acquire(), max(deadline - time.monotonic(), 0.01))
    except TimeoutError:
        raise deadline_problem("while waiting for a worker", ev.settings.retry_after_s) from None
    admission.running += 1
    try:
        return await asyncio.get_running_loop().run_in_executor(admission.runs, ev.run, admitted, sandbox, deadline)
    finally:
        admission.running -= 1
        admission.slots.release()


# -- the app -------------------------------------------------------------------------------------------------------


def openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's document, with what it cannot see: the request body (read raw, for the signature) and the
    webhook headers (verified by hand)."""
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
    operation["parameters"] = headers = [
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
    schema["paths"]["/v1/admin/reload"]["post"]["parameters"] = headers
    app.openapi_schema = schema
    return schema


def create_app(settings: ServiceSettings, *, evaluator: Evaluator | None = None) -> FastAPI:
    """The app; the lab is loaded now (a bad lab fails here), workers start with the server. `evaluator`: one
    already built (its settings are then the app's)."""
    app = FastAPI(
        title="stepeval", version="1", description=DESCRIPTION, lifespan=lifespan, docs_url=None, redoc_url=None
    )
    app.state.evaluator = evaluator or Evaluator(settings)
    add_problem_handlers(app)
    add_probes(app)
    add_evaluations(app)
    add_admin(app)
    app.openapi = functools.partial(openapi, app)  # type: ignore[method-assign]
    return app
