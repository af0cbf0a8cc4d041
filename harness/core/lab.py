"""The lab spec: models, loading from `specs/*.yaml`, and validation whose errors name file, step and field."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from harness.core import cfn_types
from harness.core.errors import BadInput, LabError, LabUnreadable
from harness.core.limits import Limits
from harness.core.paths import STEP_KEY, module_path

TWO_DIGITS = re.compile(r"[0-9]{2}")
RESOURCE_TYPE = re.compile(r"AWS::[A-Za-z0-9]+::[A-Za-z0-9]+")
HANDLE_NAME = re.compile(r"[A-Za-z0-9_]+")
REGION = re.compile(r"[a-z]{2}(-[a-z]+)+-[0-9]")
DEFAULT_TIMEOUT_S = 30.0
PLACEHOLDER = re.compile(r"\{(\w*)\}")
FEEDBACK_FIELDS = frozenset({"subject", "check", "expected", "actual"})
HANDLE_LIKE = re.compile(r"[0-9]{2}_[0-9]{2}_\w+")
STRING = "string"  # an output's type when it is a value, not a resource: its id is the value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _two_digits(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        raise ValueError(f'must be a two-digit string like "{value:02d}" (quote it in YAML), got {value}')
    if not isinstance(value, str) or not TWO_DIGITS.fullmatch(value):
        raise ValueError(f"must be two digits like '01', got {value!r}")
    return value


def _resource_type(value: str) -> str:
    if not RESOURCE_TYPE.fullmatch(value):
        raise ValueError(f"{value!r} is not of the form AWS::Service::Resource")
    if not cfn_types.exists(value):
        close = cfn_types.suggest(value)
        did_you_mean = f" (did you mean {close}?)" if close else ""
        raise ValueError(f"{value!r} is not a CloudFormation resource type{did_you_mean}")
    return value


def _output_type(value: str) -> str:
    return value if value == STRING else _resource_type(value)


def _region(value: str) -> str:
    if value != "*" and not REGION.fullmatch(value):
        raise ValueError(f"{value!r} is not a region name like 'us-east-1' (or '*' for any)")
    return value


TwoDigitId = Annotated[str, BeforeValidator(_two_digits)]
Region = Annotated[str, AfterValidator(_region)]
ResourceType = Annotated[str, AfterValidator(_resource_type)]
OutputType = Annotated[str, AfterValidator(_output_type)]
"""A resource type, or "string": a value (an ARN, a URL, a name) that is no resource of its own."""


class OutputSpec(_Strict):
    """What the step asks the learner to build: its handle name and CloudFormation type (or "string": a value such
    as an ARN, a URL or a name, whose id is the value itself)."""

    name: str
    type: OutputType
    description: str | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not HANDLE_NAME.fullmatch(value):
            raise ValueError(f"handle name {value!r} may hold only letters, digits and underscores")
        return value


class Feedback(_Strict):
    """Learner-facing text an author sets for a handle or a check: the hint, the issue sentence, or both.

    `issue` may name `{subject}` (e.g. "Subnet subnet-0b1"), `{check}`, `{expected}` and `{actual}`.
    """

    hint: str | None = None
    issue: str | None = None

    @field_validator("issue")
    @classmethod
    def _placeholders(cls, value: str | None) -> str | None:
        if value is not None:
            unknown = set(PLACEHOLDER.findall(value)) - FEEDBACK_FIELDS
            if unknown:
                raise ValueError(
                    f"unknown placeholder {{{sorted(unknown)[0]}}} (use {', '.join(sorted(FEEDBACK_FIELDS))})"
                )
        return value


class StepLimits(_Strict):
    """What one evaluation of a step may use; unset fields take the lab's, then the defaults (docs/user.md)."""

    memory_mib: int | None = Field(default=None, ge=32, le=16384)
    processes: int | None = Field(default=None, ge=4, le=4096)
    cpu_seconds: float | None = Field(default=None, gt=0, le=900)
    output_kib: int | None = Field(default=None, ge=1, le=64 * 1024)
    files: int | None = Field(default=None, ge=16, le=4096)
    answer_kib: int | None = Field(default=None, ge=16, le=16 * 1024)


class StepEntry(_Strict):
    """One step: what it consumes from earlier steps, what it must produce, and how long it may run."""

    id: TwoDigitId
    title: str | None = None
    description: str | None = None
    timeout: float | None = Field(default=None, gt=0, le=900)
    limits: StepLimits | None = None
    inputs: list[str] = Field(default_factory=list)
    outputs: list[OutputSpec] = Field(min_length=1)
    feedback: dict[str, str | Feedback] = Field(default_factory=dict)
    regions: list[Region] | None = None
    """Other regions this step's resources may be in, besides the lab's (`"*"`: any); None takes the lab's."""


class Objective(_Strict):
    """A group of steps, in the order the learner does them."""

    id: TwoDigitId
    title: str | None = None
    description: str | None = None
    steps: list[StepEntry] = Field(min_length=1)


class EmulatorNeeds(_Strict):
    """What the lab's scenarios need from the emulator (moto) that it does not do by default."""

    iam_managed_policies: bool = False
    """Load AWS managed policies (`arn:aws:iam::aws:policy/...`), as moto's MOTO_IAM_LOAD_MANAGED_POLICIES does."""

    def environment(self) -> dict[str, str]:
        """The variables a moto server process needs for these."""
        return {"MOTO_IAM_LOAD_MANAGED_POLICIES": "true"} if self.iam_managed_policies else {}


class LabSpec(_Strict):
    """The whole spec file as written."""

    project: str
    title: str | None = None
    description: str | None = None
    timeout: float | None = Field(default=None, gt=0, le=900)
    limits: StepLimits | None = None
    emulator: EmulatorNeeds = Field(default_factory=EmulatorNeeds)
    regions: list[Region] = Field(default_factory=list)
    """Other regions the lab's resources may be in, besides the lab's own (the evaluation's; `"*"`: any)."""
    objectives: list[Objective] = Field(min_length=1)


@dataclass(frozen=True)
class StepSpec:
    """One step in context: its key ("01.02"), the step, and where its module lives."""

    key: str
    objective: Objective
    step: StepEntry
    module_path: Path
    timeout_s: float
    input_types: dict[str, str]
    limits: Limits = field(default_factory=Limits)
    regions: tuple[str, ...] = ()
    """Other regions this step's resources may be in, besides the lab's (the step's, else the lab's `regions`)."""

    @property
    def stem(self) -> str:
        """The module's file stem, e.g. "01_02"."""
        return self.key.replace(".", "_")

    @property
    def output_types(self) -> dict[str, str]:
        """Each output's handle name and type, in spec order."""
        return {o.name: o.type for o in self.step.outputs}

    def slice(self) -> dict[str, Any]:
        """The `context["spec"]` a module sees: this step's inputs and outputs (with their types), and the other
        regions its resources may be in when the spec allows some."""
        allowed = {"regions": list(self.regions)} if self.regions else {}
        return allowed | {
            "step": self.key,
            "title": self.step.title,
            "description": self.step.description,
            "inputs": list(self.step.inputs),
            "outputs": [o.model_dump(exclude_none=True) for o in self.step.outputs],
            "feedback": {
                key: value if isinstance(value, str) else value.model_dump(exclude_none=True)
                for key, value in self.step.feedback.items()
            },
        }


@dataclass(frozen=True)
class Lab:
    """A validated lab: its directory, spec file, and steps indexed by key in spec order."""

    root: Path
    spec_file: Path
    spec: LabSpec
    steps: dict[str, StepSpec]
    handle_types: dict[str, str]

    def step(self, raw_key: str) -> StepSpec:
        """The step for a key such as "01.02" or "01_02"; BadInput for a malformed or unknown key."""
        key = normalize_step_key(raw_key)
        if key not in self.steps:
            known = ", ".join(self.steps) or "none"
            raise BadInput(f"{self.spec_file}: no step {key} in this lab (steps: {known})")
        return self.steps[key]


def normalize_step_key(raw_key: str) -> str:
    """ "01.02" or "01_02" -> "01.02"; anything else (a path, "1.2", "01/02") is BadInput."""
    match = STEP_KEY.fullmatch(raw_key or "")
    if not match:
        raise BadInput(f"step key {raw_key!r} is not of the form NN.NN (e.g. 01.02)")
    return f"{match.group(1)}.{match.group(2)}"


def find_spec_file(lab_dir: Path) -> Path:
    """The one YAML file under `lab_dir/specs/`."""
    if lab_dir.is_file():
        lab = lab_dir.parent.parent if lab_dir.parent.name == "specs" else lab_dir.parent
        raise LabUnreadable([f"{lab_dir}: is a file: give the lab's directory, {lab} (it holds specs/<lab>.yaml)"])
    if not lab_dir.is_dir():
        raise LabUnreadable([f"{lab_dir}: no such lab directory (a lab holds specs/<lab>.yaml)"])
    specs_dir = lab_dir / "specs"
    if not specs_dir.is_dir():
        raise LabUnreadable([f"{lab_dir}: no specs/ directory (a lab holds specs/<lab>.yaml)"])
    files = sorted(p for p in specs_dir.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    if len(files) != 1:
        found = ", ".join(p.name for p in files) or "none"
        raise LabUnreadable([f"{specs_dir}: expected exactly one .yaml spec file, found {found}"])
    return files[0]


def load_lab(lab_dir: Path | str) -> Lab:
    """Read and validate the lab in `lab_dir`; LabError lists every problem found (LabUnreadable: it cannot be
    read at all)."""
    root = Path(lab_dir).resolve()
    spec_file = find_spec_file(root)
    try:
        raw = yaml.safe_load(spec_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise LabUnreadable([f"{spec_file}: cannot read: {exc}"]) from None
    except yaml.YAMLError as exc:
        raise LabUnreadable([yaml_problem(spec_file, exc)]) from None
    if not isinstance(raw, dict):
        raise LabUnreadable([f"{spec_file}: the spec must be a mapping with 'project' and 'objectives'"])
    try:
        spec = LabSpec.model_validate(raw)
    except ValidationError as exc:
        raise LabError([_describe_error(spec_file, raw, err) for err in _one_branch(exc.errors())]) from None
    return _index(root, spec_file, spec)


def _index(root: Path, spec_file: Path, spec: LabSpec) -> Lab:
    problems: list[str] = []
    steps: dict[str, StepSpec] = {}
    handle_types: dict[str, str] = {}
    seen_objectives: set[str] = set()
    for objective in spec.objectives:
        if objective.id in seen_objectives:
            problems.append(f"{spec_file}: objective {objective.id}: id: duplicate objective id")
        seen_objectives.add(objective.id)
        for step in objective.steps:
            key = f"{objective.id}.{step.id}"
            where = f"{spec_file}: step {key}"
            if key in steps:
                problems.append(f"{where}: id: duplicate step key")
                continue
            for name in step.inputs:
                if name not in handle_types:
                    problems.append(f"{where}: inputs: {name!r} is not an output of an earlier step")
            input_types = {name: handle_types[name] for name in step.inputs if name in handle_types}
            for output in step.outputs:
                if output.name in handle_types:
                    problems.append(f"{where}: outputs: duplicate handle name {output.name!r}")
                handle_types[output.name] = output.type
            problems += _feedback_problems(where, step)
            module = module_path(root, objective.id, step.id)
            timeout = step.timeout or spec.timeout or DEFAULT_TIMEOUT_S
            limits = _limits(spec.limits, step.limits)
            regions = tuple(spec.regions if step.regions is None else step.regions)
            steps[key] = StepSpec(key, objective, step, module, timeout, input_types, limits, regions)
    if problems:
        raise LabError(problems)
    return Lab(root, spec_file, spec, steps, handle_types)


def _feedback_problems(where: str, step: StepEntry) -> list[str]:
    """Feedback keys are `hint`, a handle of the step, `HANDLE.CHECK`, or a check name; a handle-like key that is
    not one of the step's handles is a typo worth naming."""
    handles = set(step.inputs) | {o.name for o in step.outputs}
    problems = []
    for key, value in step.feedback.items():
        handle = key.split(".", 1)[0]
        if HANDLE_LIKE.fullmatch(handle) and handle not in handles:
            problems.append(f"{where}: feedback.{key}: {handle!r} is not a handle of this step")
        if isinstance(value, Feedback) and value.hint is None and value.issue is None:
            problems.append(f"{where}: feedback.{key}: give a hint, an issue, or both")
    return problems


def _one_branch(errors: list[Any]) -> list[Any]:
    """Feedback is text or a mapping: report a mapping's own error, not also "is not text" (and no branch names)."""
    mapped = {tuple(e["loc"][: e["loc"].index("Feedback")]) for e in errors if "Feedback" in e["loc"]}
    kept = []
    for error in errors:
        loc = list(error["loc"])
        if "str" in loc and tuple(loc[: loc.index("str")]) in mapped:
            continue
        kept.append({**error, "loc": tuple(part for part in loc if part not in ("str", "Feedback"))})
    return kept


def _limits(*layers: StepLimits | None) -> Limits:
    """The step's limits: each field from the step, else the lab, else the default."""
    chosen: dict[str, Any] = {}
    for layer in layers:
        if layer is not None:
            chosen.update(layer.model_dump(exclude_none=True))
    return Limits(**chosen)


def _describe_error(spec_file: Path, raw: dict[str, Any], err: Any) -> str:
    """Turn a pydantic error location into "file: step 01.02: outputs[0].type: message"."""
    loc = list(err["loc"])
    where = [str(spec_file)]
    field_parts: list[str] = []
    if loc[:1] == ["objectives"] and len(loc) >= 2 and isinstance(loc[1], int):
        objective = _at(raw, "objectives", loc[1])
        objective_id = objective.get("id") if isinstance(objective, dict) else None
        if len(loc) >= 4 and loc[2] == "steps" and isinstance(loc[3], int):
            step = _at(objective, "steps", loc[3]) if isinstance(objective, dict) else None
            step_id = step.get("id") if isinstance(step, dict) else None
            where.append(f"step {_show_id(objective_id, loc[1])}.{_show_id(step_id, loc[3])}")
            loc = loc[4:]
        else:
            where.append(f"objective {_show_id(objective_id, loc[1])}")
            loc = loc[2:]
    for part in loc:
        if isinstance(part, int):
            field_parts[-1:] = [f"{field_parts[-1] if field_parts else ''}[{part}]"]
        else:
            field_parts.append(str(part))
    field = ".".join(field_parts) or "(top level)"
    message = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        message = "unknown key" + _did_you_mean(str(loc[-1]) if loc else "")
    elif err["type"] == "too_short":
        message = "must list at least one entry"
    return f"{': '.join(where)}: {field}: {message}"


def _did_you_mean(key: str) -> str:
    """ " (did you mean 'inputs'?)" for a key close to one a spec knows (any of its models' fields), else ""."""
    known = {name for model in _spec_models() for name in model.model_fields}
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _spec_models() -> list[type[_Strict]]:
    """Every model of the spec's grammar (the subclasses of `_Strict`, at any depth)."""
    found: list[type[_Strict]] = []
    pending = [_Strict]
    while pending:
        children = pending.pop().__subclasses__()
        found.extend(children)
        pending.extend(children)
    return found


def _at(container: Any, key: str, index: int) -> Any:
    items = container.get(key) if isinstance(container, dict) else None
    if isinstance(items, list) and 0 <= index < len(items):
        return items[index]
    return None


def _show_id(value: Any, index: int) -> str:
    if isinstance(value, str) and TWO_DIGITS.fullmatch(value):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:02d}"
    return f"#{index + 1}"


def yaml_problem(path: Path, exc: yaml.YAMLError) -> str:
    """One line: the file, the line and column where the parser stopped, and what it found there."""
    mark = getattr(exc, "problem_mark", None)
    where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    return f"{where}: not valid YAML: {_one_line(problem)}" + (f" ({_one_line(context)})" if context else "")


def _one_line(text: str) -> str:
    return " ".join(text.split())
