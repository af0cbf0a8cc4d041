"""The request body: its model (with the JSON Schema in /openapi.json) and validation into clear 4xx refusals."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from harness.core.botocore_models import partition_regions
from harness.core.contract import PLATFORM_ERROR, Answer, Event, Handle
from harness.core.errors import BadInput
from harness.core.lab import Lab, StepSpec, normalize_step_key
from harness.service.problems import FieldError, Problem, show

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails  # pydantic's own: ValidationError.errors() gives these

# Whole-string (\A...\Z, never $: it accepts a trailing newline) and ASCII-only (\d and \w take full-width digits).
ACCOUNT_ID = re.compile(r"\A[0-9]{12}\Z")
# arn:PARTITION:iam::ACCOUNT:role/[PATH/]NAME, as IAM allows them
ROLE_ARN = re.compile(r"\Aarn:(aws|aws-cn|aws-us-gov):iam::([0-9]{12}):role/(?:[!-~]*/)?[\w+=,.@-]{1,64}\Z", re.ASCII)
EXTERNAL_ID = re.compile(r"\A[\w+=,.@:/-]{2,1224}\Z", re.ASCII)
REGION = re.compile(r"\A[a-z]{2}(-[a-z]+)+-[0-9]{1,2}\Z")
LAB_VERSION = re.compile(r"\A[0-9a-f]{16}\Z", re.IGNORECASE)  # answered lower-case, accepted in either
MAX_ITEMS = 1000

EXAMPLE_REQUEST: dict[str, Any] = {
    "step": "01.01",
    "sandbox": {
        "account_id": "111111111111",
        "role_arn": "arn:aws:iam::111111111111:role/stepeval-evaluator",
        "external_id": "lab-platform-7f3c9a",
        "region": "us-east-1",
    },
    "resolved": [],
    "events": [{"type": "AWS::S3::Bucket", "id": "learner-site-bucket"}],
}
EXAMPLE_ANSWER: dict[str, Any] = {  # the answer docs/service.md shows (tests/service/test_docs.py: a real one)
    "step": "01.01",
    "status": "pass",
    "success": True,
    "message": "All 1 check passed.",
    "validated": [{"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": "learner-site-bucket", "status": "found"}],
    "failure_context": None,
    "error": None,
    "resolved": [{"name": "01_01_bucket", "type": "AWS::S3::Bucket", "id": "learner-site-bucket"}],
    "progress": {"passed": 1, "total": 1},
    "retry_after_s": None,
    "duration_ms": 646.75,
    "diagnostics": {
        "checks": [
            {"handle": "01_01_bucket", "check": "versioning", "ok": True, "expected": "Enabled", "actual": "Enabled"}
        ],
        "log": [],
        "operations": [
            {"service": "s3", "operation": "HeadBucket", "allowed": True, "status": 200, "ms": 143.907, "detail": ""},
            {
                "service": "s3",
                "operation": "GetBucketVersioning",
                "allowed": True,
                "status": 200,
                "ms": 13.617,
                "detail": "",
            },
        ],
        "output": "",
        "output_truncated": False,
    },
    "lab": "web-tier",
    "lab_version": "5d1f0a3c9e7b2468",
    "request_id": "msg_8b663ea090034b2a8a53e269fa2eacaa",
}
EXAMPLE_ERROR_ANSWER: dict[str, Any] = {
    **EXAMPLE_ANSWER,
    "status": "error",
    "success": False,
    "message": PLATFORM_ERROR,
    "validated": [],
    "resolved": [],
    "error": {
        "kind": "platform",
        "detail": "sts:AssumeRole into arn:aws:iam::111111111111:role/stepeval-evaluator failed: AccessDenied: ...",
    },
    "progress": None,
    "duration_ms": 35.0,
    "diagnostics": None,
}


def _pattern(value: str, pattern: re.Pattern[str], what: str) -> str:
    if not pattern.match(value):
        raise ValueError(f"must be {what}, got {show(value)}")
    return value


class AccountRef(BaseModel):
    """Which account to reach, and how: the role we assume there and the external id its trust policy requires."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"example": EXAMPLE_REQUEST["sandbox"]})

    account_id: str = Field(description="the sandbox account: 12 digits; the assumed identity must be in it")
    role_arn: str = Field(description="arn:aws:iam::ACCOUNT:role/NAME, read-only, trusting the service")
    external_id: str = Field(description="the external id the role's trust policy requires (2-1224 characters)")
    region: str = Field(description="the lab's region, e.g. us-east-1")

    @field_validator("account_id")
    @classmethod
    def _account(cls, value: str) -> str:
        return _pattern(value, ACCOUNT_ID, "an AWS account id of 12 digits")

    @field_validator("role_arn")
    @classmethod
    def _role(cls, value: str) -> str:
        return _pattern(value, ROLE_ARN, "an IAM role ARN (arn:aws:iam::123456789012:role/NAME)")

    @field_validator("external_id")
    @classmethod
    def _external(cls, value: str) -> str:
        return _pattern(value, EXTERNAL_ID, "2 to 1224 characters of letters, digits and +=,.@:/-_")

    @field_validator("region")
    @classmethod
    def _region(cls, value: str) -> str:
        return _pattern(value, REGION, "an AWS region such as us-east-1")

    @model_validator(mode="after")
    def _role_in_the_account(self) -> AccountRef:
        """The role is the sandbox account's own: another account's role would read another account (refused
        before any STS call, so nothing is assumed there)."""
        role_account = self.role_arn.split(":")[4]
        if role_account != self.account_id:
            raise PydanticCustomError(
                "account_mismatch",
                "sandbox.role_arn: the role is in account {role_account}, not in sandbox.account_id {account_id}",
                {"role_account": role_account, "account_id": self.account_id},
            )
        return self

    @model_validator(mode="after")
    def _region_of_the_partition(self) -> AccountRef:
        """The region is one of the role's partition's (botocore's list): us-east-9 is a typo, not a region."""
        partition = self.role_arn.split(":")[1]
        regions = partition_regions().get(partition, frozenset())
        if self.region not in regions:
            close = difflib.get_close_matches(self.region, sorted(regions), n=1)
            raise PydanticCustomError(
                "unknown_region",
                "sandbox.region: {region} is not a region of the {partition} partition{hint}",
                {
                    "region": self.region,
                    "partition": partition,
                    "hint": f" (did you mean {close[0]}?)" if close else "",
                },
            )
        return self


class EvaluationRequest(BaseModel):
    """A step-completion hook: which step, which sandbox, and the step's context."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"example": EXAMPLE_REQUEST})

    step: str = Field(description='the step key, "01.02" (or "01_02")')
    lab: str | None = Field(
        None, max_length=200, description="the lab's project; required where the service serves more than one lab"
    )
    lab_version: str | None = Field(
        None,
        description="judge with this version of the lab (one the service holds: 409 otherwise; either case); else its"
        " newest",
    )
    sandbox: AccountRef
    resolved: list[Handle] = Field(default_factory=list, max_length=MAX_ITEMS, description="earlier steps' handles")
    events: list[Event] = Field(default_factory=list, max_length=MAX_ITEMS, description="this step's events")

    @field_validator("step")
    @classmethod
    def _step(cls, value: str) -> str:
        try:
            return normalize_step_key(value[:32])
        except BadInput:
            raise ValueError(f"must be a step key of the form NN.NN (e.g. 01.02), got {show(value)}") from None

    @field_validator("lab_version")
    @classmethod
    def _lab_version(cls, value: str | None) -> str | None:
        return None if value is None else _pattern(value, LAB_VERSION, "a lab version of 16 hex digits").lower()


class EvaluationAnswer(Answer):
    """The answer `stepeval run` prints, plus the lab version that judged it and the request it answers."""

    model_config = ConfigDict(json_schema_extra={"example": EXAMPLE_ANSWER})

    lab: str = Field(description="the lab's project")
    lab_version: str = Field(description="the version of the lab that judged it: a hash of its spec and modules")
    request_id: str


MESSAGES = {
    "missing": "is required",
    "extra_forbidden": "is not a field of this request",
    "string_type": "must be a string",
    "list_type": "must be a JSON array",
    "model_type": "must be a JSON object",
    "dict_type": "must be a JSON object",
}
# errors found by AccountRef's model validators (across fields) -> the field each names
WHOLE_SANDBOX_ERRORS = {"unknown_region": "sandbox.region", "account_mismatch": "sandbox.role_arn"}
JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number"}


def field_path(loc: tuple[Any, ...]) -> str:
    """("events", 2, "type") -> "events[2].type"."""
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    return text or "body"


def _describe(err: ErrorDetails) -> FieldError:
    field = field_path(tuple(err["loc"]))
    if err["type"] == "too_long":
        context = err.get("ctx", {})
        message = f"at most {context.get('max_length')} items are accepted, got {context.get('actual_length')}"
        return FieldError(field=field, message=f"{field}: {message}")
    if err["type"] in WHOLE_SANDBOX_ERRORS:
        return FieldError(field=WHOLE_SANDBOX_ERRORS[err["type"]], message=err["msg"])
    message = MESSAGES.get(err["type"]) or err["msg"].removeprefix("Value error, ")
    if err["type"] in ("string_type", "list_type", "model_type", "dict_type"):
        got = JSON_TYPES.get(type(err.get("input")), "null" if err.get("input") is None else "a number")
        message = f"{message}, got {got}"
    return FieldError(field=field, message=f"{field}: {message}")


def is_json(content_type: str | None) -> bool:
    """application/json, with or without parameters (charset)."""
    media = (content_type or "").split(";")[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def parse_request(
    body: bytes, content_type: str | None, lab: Lab | Callable[[EvaluationRequest], Lab]
) -> tuple[EvaluationRequest, StepSpec]:
    """The validated request and its step, in `lab` (or the lab `lab` chooses for the request: it may raise a
    Problem); Problem 415, 400 or 422 naming the field otherwise."""
    if not is_json(content_type):
        raise Problem(
            415,
            "unsupported_media_type",
            f"content-type: must be application/json, got {show(content_type or 'none')}",
            field="content-type",
        )
    raw = json_object(body)
    try:
        request = EvaluationRequest.model_validate(raw)
    except ValidationError as exc:
        errors = [_describe(err) for err in exc.errors()[:20]]
        raise Problem(422, "invalid_field", errors[0].message, field=errors[0].field, errors=errors) from None
    if not isinstance(lab, Lab):
        lab = lab(request)
    step = lab.steps.get(request.step)
    if step is None:
        known = ", ".join(lab.steps) or "none"
        raise Problem(422, "unknown_step", f"step: no step {request.step} in this lab (steps: {known})", field="step")
    _check_handles(request, lab)
    return request, step


def json_object(body: bytes) -> dict[str, Any]:
    """A body that must be one JSON object; Problem 400 (not JSON) or 422 (another JSON value) naming `body`."""
    try:
        raw = json.loads(body.decode("utf-8"))
        json.dumps(raw, ensure_ascii=False).encode("utf-8")  # a lone surrogate (\ud800) parses, and breaks later
    except UnicodeDecodeError:
        raise Problem(400, "invalid_json", "body: is not UTF-8 text", field="body") from None
    except UnicodeEncodeError:
        raise Problem(
            400, "invalid_json", "body: a string holds a lone surrogate (no UTF-8 text)", field="body"
        ) from None
    except json.JSONDecodeError as exc:
        raise Problem(400, "invalid_json", f"body: is not valid JSON: {exc}", field="body") from None
    except ValueError as exc:  # what the parser refuses past the JSON grammar: an integer of over 4,300 digits
        raise Problem(
            400, "invalid_json", f"body: a value the service cannot read: {exc}"[:200], field="body"
        ) from None
    except RecursionError:
        raise Problem(400, "invalid_json", "body: JSON nested too deeply", field="body") from None
    if not isinstance(raw, dict):
        got = JSON_TYPES.get(type(raw), "null" if raw is None else "a number")
        raise Problem(422, "invalid_field", f"body: must be a JSON object, got {got}", field="body")
    return raw


def check_reload_body(body: bytes) -> None:
    """The admin reload's body: empty or `{}`. A reload reads every lab directory again and takes no options: a
    field in it (`{"lab": "web-tier"}`) is refused with a 422 naming it, not silently ignored."""
    if not body.strip():
        return
    fields = json_object(body)
    if fields:
        name = next(iter(fields))
        raise Problem(
            422,
            "invalid_field",
            f"{name[:60]}: the reload takes no fields: it reads every lab directory again (send an empty body or {{}})",
            field=name[:200],
        )


def _check_handles(request: EvaluationRequest, lab: Lab) -> None:
    """Resolved handles must be this lab's, with the types its spec gives them."""
    for index, handle in enumerate(request.resolved):
        field = f"resolved[{index}]"
        expected = lab.handle_types.get(handle.name)
        if expected is None:
            raise Problem(
                422,
                "invalid_field",
                f"{field}.name: {show(handle.name)} is not a handle of this lab",
                field=f"{field}.name",
            )
        if expected != handle.type:
            raise Problem(
                422,
                "invalid_field",
                f"{field}.type: {handle.name} is a {expected}, not {handle.type}",
                field=f"{field}.type",
            )
