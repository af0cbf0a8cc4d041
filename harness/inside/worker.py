"""The evaluation process's side of a job: runs one step module, once, and answers with one frame.

It runs in a process forked from the template (harness/sandbox/template.py) that runs nothing else: no state
of one evaluation can reach another. A reply is `{"outcome": "returned", "result": ...}`, `{"outcome": "loaded"}`
or `{"outcome": "error", "kind", "detail"}`.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError, ParamValidationError

from harness.core.botocore_models import known_services, warm_up
from harness.core.limits import Limits
from harness.core.paths import DEFAULT_REGION
from harness.core.readonly import WriteRefused, is_read
from harness.inside.job import answer_one, error, import_kit, limit_hit, reply
from harness.inside.link import GatewayLink
from harness.inside.loader import LoadError, load_step, trimmed_traceback
from harness.inside.rehearsal import rehearse
from harness.inside.session import GatewaySession
from harness.kit.aws import reads_are_consistent

__all__ = ["import_kit", "prepare", "serve_one", "warm_services"]  # what the template calls

STEP_LOGGER_PREFIX = "stepeval.step"
MAX_LOG_LINES = 200
MAX_LOG_LINE_CHARS = 500
Pair = tuple[str, str]  # (service, region)


def describe_aws_error(exc: BaseException) -> str:
    """`service:Operation: Code: message` for a ClientError; botocore's own text otherwise."""
    if isinstance(exc, ClientError):
        info = exc.response.get("Error", {})
        operation = getattr(exc, "operation_name", "?")
        return f"{operation}: {info.get('Code', '?')}: {info.get('Message', '')}".strip()
    return f"{type(exc).__name__}: {exc}"


class LogLines(logging.Handler):
    """Keeps what a module logs during one evaluation (capped), for the answer's author-only diagnostics."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.lines) < MAX_LOG_LINES:
            self.lines.append(self.format(record)[:MAX_LOG_LINE_CHARS])


class Worker:
    """Executes one job: `run` (evaluate a step) or `load` (import and check a module, for `stepeval check`).

    The session (and the clients recent evaluations used) come ready-made from the template, on the process's
    line to the gateway: this process's copy, never used by anyone before. Its event loop is made before the job.
    """

    def __init__(self) -> None:
        self.loop = _new_event_loop()

    def handle(self, job: dict[str, Any]) -> dict[str, Any]:
        return reply(job, self.run)

    def run(self, job: dict[str, Any]) -> dict[str, Any]:
        LINK.attach(job["gateway"]["socket"], job["gateway"]["token"])
        reads_are_consistent(bool(job.get("emulator")))
        session = _template_session(job["region"])
        lines = LogLines()  # the module's log lines travel in the reply (`log`), for the answer's diagnostics
        logger = logging.getLogger(f"{STEP_LOGGER_PREFIX}.{Path(job['module']).stem}")
        logger.addHandler(lines)
        try:
            answer = self._run(job, session)
        finally:
            logger.removeHandler(lines)
        answer["log"] = lines.lines
        return answer

    def rehearse(self) -> dict[str, Any]:
        """A job of our own, run once in the template and again in each spare before its job (REHEARSAL_MODULE, in
        the harness's directory, which every root holds): the pages the job's path writes (loader, event loop,
        logging, the answer's checks) are copied before the job, not on its way."""
        return self._run({"module": str(REHEARSAL_MODULE), "context": {}}, _template_session(DEFAULT_REGION))

    def _run(self, job: dict[str, Any], session: GatewaySession) -> dict[str, Any]:
        path = Path(job["module"])
        limits = Limits.from_message(job.get("limits"))
        try:
            run = load_step(path)
        except LoadError as exc:
            return error("load", f"{path}: {exc}")
        logger = logging.getLogger(f"{STEP_LOGGER_PREFIX}.{path.stem}")
        try:
            # Not asyncio.Runner: its close waits for the module's leftover tasks and executor threads before the
            # answer can leave (~0.3 ms when there are none). The process ends once it has answered: they end with it.
            result = self.loop.run_until_complete(run(session, job["context"], logger))
        except WriteRefused as exc:
            return error("read_only", str(exc))
        except ParamValidationError as exc:
            return error("exception", trimmed_traceback(exc, path))
        except (ClientError, BotoCoreError) as exc:
            return error("aws", describe_aws_error(exc))
        except BaseException as exc:
            return limit_hit(exc, limits) or error("exception", trimmed_traceback(exc, path))
        if session.guard.refused:
            refused = ", ".join(session.guard.refused)
            return error("read_only", f"refused {refused}: evaluation code may only read (the refusal was caught)")
        try:
            json.dumps(result)
        except (TypeError, ValueError) as exc:
            return error("contract", f"contract rule 'result-json': the result is not JSON-serializable: {exc}")
        return {"outcome": "returned", "result": result}


LINK = GatewayLink()  # the process's line to the gateway: attached to one evaluation, in a process forked for it
_sessions: dict[str, GatewaySession] = {}  # built in the template, one per region, used by one evaluation each
_rehearsed: set[tuple[str, str, str]] = set()  # (service, region, operation) rehearsed in the template
_replayed_by_spares: list[tuple[str, str, str]] = []  # the first of them (the labs' own), replayed by each spare
SPARE_REHEARSALS = 8  # a spare's replays cost CPU per evaluation: only the likeliest
REHEARSAL_MODULE = Path(__file__).parent / "rehearsal_lab" / "evaluation" / "boto3" / "00_00.py"


def _template_session(region: str) -> GatewaySession:
    if region not in _sessions:
        _sessions[region] = GatewaySession(LINK, region)
    return _sessions[region]


def prepare() -> None:
    """In the template, once: what every evaluation would otherwise load (botocore's shared data, a session,
    asyncio) and an evaluation of our own."""
    warm_up()
    _template_session(DEFAULT_REGION)
    importlib.import_module("encodings.idna")  # what the first connection imports (20 ms with its dependencies)
    Worker().rehearse()  # the loader's, asyncio's (the loop policy...) and the answer's first-use work, once


def _new_event_loop() -> asyncio.AbstractEventLoop:
    """A new event loop, made current as asyncio.Runner would make it (a module's get_event_loop() is this one)."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    return loop


def warm_services(pairs: list[Pair], calls: list[Pair]) -> None:
    """In the template: build the clients the labs' files name (a model parse is tens of ms for EC2, a client
    class ~10 ms) and rehearse the reads among the calls they make (harness/inside/rehearsal.py; `calls`: (service,
    method or operation) pairs, most of them no read of that service: those are skipped): every evaluation forked
    after inherits them, ready. The template runs no evaluation and holds no credential (dummy keys: the gateway
    signs), so what it builds carries nothing from one to the next. The first reads are replayed by each spare too
    (`serve_one`), so that the pages they touch are copied before its job, not during it."""
    sessions: dict[Pair, GatewaySession] = {}
    for service, region in pairs:
        if service not in known_services():
            continue
        try:
            session = _template_session(region)
            session.warm([(service, region)])
        except Exception as exc:  # a name botocore refuses: nothing is warmed for it, the template goes on
            logging.getLogger(__name__).debug("no client for %s in %s: %s", service, region, exc)
            continue
        sessions[(service, region)] = session
    recent: list[tuple[str, str, str]] = []
    for service, call in calls:  # oldest first
        for (named, region), session in sessions.items():
            if named != service:
                continue
            operation = session.client(service, region).meta.method_to_api_mapping.get(call, call)
            if not is_read(service, operation):
                continue
            if (service, region, operation) not in _rehearsed:
                _rehearsed.add((service, region, operation))
                rehearse(session.client(service, region), operation)
            recent.append((service, region, operation))
    _replayed_by_spares[:] = recent[:SPARE_REHEARSALS]


def serve_one(
    channel: int,
    confine: Callable[[list[str], Limits], None],
    gateway_socket: str | None,
    *,
    rehearse_job: bool = True,
) -> None:
    """Open a line to the gateway (if it is known already), rehearse the job (if asked: the pages it writes are
    copied now, not on its way), then answer one job (`serving.answer_one`; the caller exits)."""
    worker = Worker()
    if gateway_socket:
        LINK.preconnect(gateway_socket)
    if rehearse_job:
        for service, region, operation in _replayed_by_spares:
            rehearse(_template_session(region).client(service, region), operation)
        Worker().rehearse()  # on an event loop of its own: the job's is left as new
    answer_one(channel, confine, worker.handle)
