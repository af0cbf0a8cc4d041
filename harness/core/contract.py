"""The seed contract: what a step receives (Context), what it must return (checked here), what callers get (Answer)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, ValidationError, model_serializer

from harness.core.errors import BadInput
from harness.core.lab import Lab, OutputType, ResourceType, StepSpec
from harness.kit import tally

Status = Literal["pass", "fail", "pending", "error"]
"""pass and fail are verdicts on the learner's work; pending says AWS is still creating or changing a resource the
step judges and nothing else is wrong (not yet: ask again after `retry_after_s`); error is no verdict at all."""

MAX_RETRY_AFTER_S = 3600
ErrorKind = Literal[
    "read_only",
    "bad_request",  # a request the read-only gateway would not read (malformed, or past one of its bounds)
    "timeout",
    "exception",
    "crash",
    "contract",
    "load",
    "aws",
    "sandbox",
    "platform",  # the platform's set-up is wrong (the account, the role, the region): only the platform can fix it
    "service",  # the service's own set-up is wrong (its endpoint, its own credentials): its operator's to fix
    "memory",  # the step's memory limit was reached
    "cpu",  # its CPU-time limit
    "processes",  # its process limit
    "output",  # its stdout/stderr limit
    "files",  # its open-file limit
    "answer",  # its answer-size limit
]

LEARNER_SAFE_ERROR = (
    "We could not check this step right now. This is not a verdict on your work: please try again in a moment."
)
PLATFORM_ERROR = (
    "We could not check this step: the lab platform's set-up for your sandbox needs fixing, and trying again will"
    " not help until it is. This is not a verdict on your work: please tell the lab's support."
)
SERVICE_ERROR = (
    "We could not check this step: the evaluation service cannot reach AWS as it is set up, and trying again will not"
    " help until its operators fix it. This is not a verdict on your work: please tell the lab's support."
)
TIMEOUT_ERROR = (
    "We could not check this step: the check did not finish in the time it is allowed. This is not a verdict on your"
    " work: you may try again, and if it happens again, please tell the lab's support."
)
AUTHOR_ERROR = (
    "We could not check this step: the lab's check for it is broken, and trying again will not help until the lab's"
    " author fixes it. This is not a verdict on your work: please tell the lab's support."
)
# the kinds whose learner message is not LEARNER_SAFE_ERROR: a fault only the platform, the service's operator or
# the lab's author can fix (`exception`: the module's own code raised, an AttributeError or a TypeError that every
# try will raise again), and `timeout`, which may pass (AWS slow for once) or recur at every try (a step slower than
# its timeout, or than the service's deadline): neither promised nor ruled out, the learner told to report it if it
# happens again
LEARNER_MESSAGES = {
    "platform": PLATFORM_ERROR,
    "service": SERVICE_ERROR,
    "timeout": TIMEOUT_ERROR,
    "load": AUTHOR_ERROR,
    "contract": AUTHOR_ERROR,
    "exception": AUTHOR_ERROR,
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Regional(_Model):
    """A model with an optional `region`: absent means the session's, and an absent region is not written out."""

    region: str | None = Field(default=None, min_length=1)

    @model_serializer(mode="wrap")
    def _without_absent_region(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        region = data.pop("region", None)
        return data if region is None else {**data, "region": region}


class Handle(_Regional):
    """A validated resource from an earlier step, as the platform stores it (`region` if not the session's); a
    "string" handle's id is its value."""

    name: str = Field(min_length=1)
    type: OutputType
    id: str = Field(min_length=1)


class Event(_Regional):
    """A resource event of this step: CloudFormation type, physical id, `region` if not the session's."""

    type: ResourceType
    id: str = Field(min_length=1)


class ContextInput(_Model):
    """What a caller supplies; the harness adds `spec`."""

    resolved: list[Handle] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list)


def parse_context(raw: Any, *, source: str, lab: Lab) -> ContextInput:
    """Validate a caller's context; BadInput names the source and the field (e.g. `resolved[1].type`)."""
    if not isinstance(raw, dict):
        raise BadInput(f"{source}: the context must be a JSON object with 'resolved' and 'events'")
    try:
        context = ContextInput.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
        message = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        raise BadInput(f"{source}: {field}: {message.removeprefix('Value error, ')}") from None
    for index, handle in enumerate(context.resolved):
        expected = lab.handle_types.get(handle.name)
        if expected is None:
            raise BadInput(f"{source}: resolved[{index}].name: {handle.name!r} is not a handle of this lab")
        if expected != handle.type:
            raise BadInput(f"{source}: resolved[{index}].type: {handle.name} is a {expected}, not {handle.type}")
    return context


def build_context(context: ContextInput, step: StepSpec) -> dict[str, Any]:
    """The plain dict handed to `run()`: resolved, events and the step's spec slice."""
    return {
        "resolved": [h.model_dump() for h in context.resolved],
        "events": [e.model_dump() for e in context.events],
        "spec": step.slice(),
    }


class ValidatedEntry(_Regional):
    """One handle the module looked for, and whether it found it (and in which region, if not the session's)."""

    name: str
    type: str
    id: str | None = None
    status: Literal["found", "not_found"]


class FailureContext(_Model):
    """Where the learner's work falls short, precise enough to become a hint."""

    step: str
    issue: str
    hint_context: str


class Check(_Model):
    """One named check a module made (the kit records them): what it expected and what it saw."""

    handle: str | None = None
    check: str
    ok: bool
    expected: Any = None
    actual: Any = None


class Progress(_Model):
    """How many of the step's own checks passed (`kit.tally`): something a learner can watch grow."""

    passed: int
    total: int


class ErrorInfo(_Model):
    """Why an evaluation could not complete (author-facing); never shown to the learner as a verdict."""

    kind: ErrorKind
    detail: str


class Operation(_Model):
    """One AWS request the module made, as the read-only gateway saw it."""

    service: str
    operation: str
    allowed: bool
    status: int | None = None
    ms: float = 0.0
    detail: str = ""

    @property
    def refusal(self) -> ErrorKind | None:
        """What a refusal of this request makes the evaluation: `read_only` for a request that is not a read (the
        gateway's 403), `bad_request` for one it would not read at all; None if it was allowed."""
        if self.allowed:
            return None
        return "read_only" if self.status == 403 else "bad_request"


class Diagnostics(_Model):
    """Author-only facts about an evaluation: the platform may drop them before showing the learner anything.

    `checks` (with the actual values the module saw) and `log` (the module's logger lines) come from the
    evaluation; `operations` and `output` from the gateway and the worker's captured stdout/stderr.
    """

    checks: list[Check] = Field(default_factory=list)
    log: list[str] = Field(default_factory=list)
    operations: list[Operation] = Field(default_factory=list)
    output: str = ""
    output_truncated: bool = False


class Answer(_Model):
    """What every caller gets, whatever the module did: the seed keys plus status, error, resolved, timing."""

    step: str
    status: Status
    success: bool
    message: str
    validated: list[ValidatedEntry] = Field(default_factory=list)
    failure_context: FailureContext | None = None
    error: ErrorInfo | None = None
    resolved: list[Handle] = Field(default_factory=list)
    progress: Progress | None = None
    retry_after_s: int | None = None
    duration_ms: float = 0.0
    diagnostics: Diagnostics | None = None

    @property
    def checks(self) -> list[Check]:
        """The checks the module recorded (author-only: they travel in `diagnostics`)."""
        return self.diagnostics.checks if self.diagnostics else []

    @classmethod
    def failed_to_run(
        cls, step: str, kind: ErrorKind, detail: str, duration_ms: float = 0.0, log: list[str] | None = None
    ) -> Answer:
        """An `error` answer: success false, a learner-safe message, the diagnosis in `error.detail` (and the
        module's log lines, if it logged any, in `diagnostics.log`)."""
        return cls(
            step=step,
            status="error",
            success=False,
            message=LEARNER_MESSAGES.get(kind, LEARNER_SAFE_ERROR),
            error=ErrorInfo(kind=kind, detail=detail),
            duration_ms=round(duration_ms, 2),
            diagnostics=Diagnostics(log=log) if log else None,
        )


class ContractViolation(Exception):
    """The module's result breaks a contract rule; the message names the rule and the entry."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"contract rule '{rule}': {detail}")
        self.rule = rule


REQUIRED_ENTRY_KEYS = ("name", "type", "id", "status")
REQUIRED_FAILURE_KEYS = ("step", "issue", "hint_context")


def check_result(result: Any, step: StepSpec, duration_ms: float, log: list[str] | None = None) -> Answer:
    """Hold a module's result to the seed contract and the step's spec; the pass, fail or pending Answer if it holds.

    The result's `checks` and the module's `log` lines go to the answer's author-only `diagnostics`.
    """
    if not isinstance(result, dict):
        raise ContractViolation("result-is-dict", f"run() returned {type(result).__name__}, not a dict")
    for key in ("validated", "success", "message"):
        if key not in result:
            raise ContractViolation("required-keys", f"the result has no {key!r}")
    entries = _check_entries(result["validated"], step)
    success = result["success"]
    if not isinstance(success, bool):
        raise ContractViolation("success-is-bool", f"success is {success!r}, not true or false")
    if not isinstance(result["message"], str):
        raise ContractViolation("message-is-text", f"message is {type(result['message']).__name__}, not a string")
    failure = _check_failure_context(result.get("failure_context"))
    retry_after_s = _check_retry_after(result.get("retry_after_s"), success)
    missing = [e for e in entries if e.status == "not_found"]
    if success and missing:
        raise ContractViolation("success-matches-entries", f"success is true but {missing[0].name} is not_found")
    if not success and not missing and failure is None:
        raise ContractViolation(
            "success-matches-entries",
            "success is false while every entry is found and there is no failure_context",
        )
    checks = _check_checks(result.get("checks", []))
    outputs = step.output_types
    return Answer(
        step=step.key,
        status="pass" if success else "pending" if retry_after_s is not None else "fail",
        success=success,
        message=result["message"],
        validated=entries,
        failure_context=failure,
        resolved=[
            Handle(name=e.name, type=e.type, id=e.id, region=e.region)
            for e in entries
            if e.status == "found" and e.name in outputs and e.id
        ],
        progress=_progress(checks, step),
        retry_after_s=retry_after_s,
        duration_ms=round(duration_ms, 2),
        diagnostics=Diagnostics(checks=checks, log=log or []) if checks or log else None,
    )


def _progress(checks: list[Check], step: StepSpec) -> Progress | None:
    """How many of the step's own checks hold (`kit.tally`: an earlier step's resource re-verified is not counted,
    unless the step does nothing else), as the kit's message counts them."""
    counted = tally.tallied(checks, lambda c: c.handle, step.input_types)
    return Progress(passed=sum(c.ok for c in counted), total=len(counted)) if counted else None


def _check_retry_after(raw: Any, success: bool) -> int | None:
    """A result's optional `retry_after_s`: it makes the answer `pending` (AWS is not finished; nothing is wrong),
    so it needs success false and a whole number of seconds, 1 to MAX_RETRY_AFTER_S."""
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= MAX_RETRY_AFTER_S:
        raise ContractViolation(
            "retry-after-shape",
            f"retry_after_s is {raw!r}, not a whole number of seconds from 1 to {MAX_RETRY_AFTER_S}",
        )
    if success:
        raise ContractViolation("pending-is-not-success", "retry_after_s is set but success is true")
    return raw


def _check_checks(raw: Any) -> list[Check]:
    """The optional `checks` list a kit-built result carries; passed through to the answer."""
    if not isinstance(raw, list):
        raise ContractViolation("checks-shape", f"checks is {type(raw).__name__}, not a list")
    checks = []
    for index, item in enumerate(raw):
        try:
            checks.append(Check.model_validate(item))
        except ValidationError as exc:
            problem = exc.errors()[0]
            field = ".".join(str(p) for p in problem["loc"]) or "(entry)"
            raise ContractViolation("checks-shape", f"checks[{index}].{field}: {problem['msg']}") from None
    return checks


def _check_entries(validated: Any, step: StepSpec) -> list[ValidatedEntry]:
    if not isinstance(validated, list):
        raise ContractViolation("validated-is-list", f"validated is {type(validated).__name__}, not a list")
    outputs = step.output_types
    inputs = step.input_types
    entries: list[ValidatedEntry] = []
    for index, raw in enumerate(validated):
        where = f"validated[{index}]"
        if not isinstance(raw, dict):
            raise ContractViolation("entry-shape", f"{where} is {type(raw).__name__}, not an object")
        where = f"{where} ({raw.get('name', '?')})"
        absent = [key for key in REQUIRED_ENTRY_KEYS if key not in raw]
        if absent:
            raise ContractViolation("entry-keys", f"{where} lacks {', '.join(absent)}")
        if raw["status"] not in ("found", "not_found"):
            raise ContractViolation("entry-status", f"{where} has status {raw['status']!r}")
        if not isinstance(raw["name"], str) or not isinstance(raw["type"], str):
            raise ContractViolation("entry-shape", f"{where}: name and type must be strings")
        if raw["id"] is not None and not isinstance(raw["id"], str):
            raise ContractViolation("entry-shape", f"{where}: id must be a string or null")
        name = raw["name"]
        if name not in outputs and name not in inputs:
            raise ContractViolation("entry-name", f"{where}: {name} is neither an output nor an input of {step.key}")
        expected_type = outputs.get(name) or inputs.get(name)
        if expected_type and raw["type"] != expected_type:
            raise ContractViolation(
                "entry-type", f"{where}: type {raw['type']} differs from the spec's {expected_type}"
            )
        if raw["status"] == "found" and not raw["id"]:
            raise ContractViolation("found-has-id", f"{where} is found but has no id")
        region = raw.get("region")
        if region is not None and (not isinstance(region, str) or not region):
            raise ContractViolation("entry-shape", f"{where}: region must be a region name or absent")
        entries.append(ValidatedEntry(name=name, type=raw["type"], id=raw["id"], status=raw["status"], region=region))
    named = {e.name for e in entries}
    for name in outputs:
        if name not in named:
            raise ContractViolation("outputs-validated", f"spec output {name} is missing from validated")
    return entries


def _check_failure_context(raw: Any) -> FailureContext | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ContractViolation("failure-context-shape", f"failure_context is {type(raw).__name__}, not an object")
    absent = [key for key in REQUIRED_FAILURE_KEYS if key not in raw]
    if absent:
        raise ContractViolation("failure-context-keys", f"failure_context lacks {', '.join(absent)}")
    try:
        return FailureContext(**{key: raw[key] for key in REQUIRED_FAILURE_KEYS})
    except ValidationError:
        raise ContractViolation(
            "failure-context-shape", "failure_context step, issue and hint_context must be strings"
        ) from None
