"""Every kit requirement that refers to another resource, given an output with no resource (or a reference read
off one: None), misses with a sentence naming what is missing: it never raises, and never says "None".

The requirements are found by walking the kit's modules for the functions `@later` makes (the ones that take an
output), so a new one is covered the day it is written.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import harness.kit
from harness.kit import iam, net, sqs
from harness.kit.later import Deferred
from harness.kit.outputs import Output
from harness.kit.require import Misapplied, Requirement, require
from harness.kit.stops import Absent

MISSING = "01_02_missing"
LABEL = "the second SQS queue this step asks for"
"""How the learner knows the missing output: a miss never names its handle, which only the platform knows."""
RESOURCES = ({}, {"Arn": "arn:aws:sqs:us-east-1:123456789012:orders", "QueueUrl": "https://x/orders", "Tags": []})
"""What the requirements are judged on: an empty resource, and one with a few common keys."""


def _missing_output() -> Output:
    return Output(MISSING, lambda _: None, lambda _: LABEL)


def _later_functions() -> Iterator[tuple[str, Callable[..., Any]]]:
    for module_info in pkgutil.iter_modules(harness.kit.__path__):
        module = importlib.import_module(f"harness.kit.{module_info.name}")
        for name, function in sorted(vars(module).items()):
            code = getattr(function, "__code__", None)
            if name.startswith("_") or getattr(function, "__module__", None) != module.__name__ or code is None:
                continue
            if code.co_qualname == "later.<locals>.call":
                yield f"{module_info.name}.{name}", function


LATER = dict(_later_functions())
NOT_REQUIREMENTS = {"net.tcp", "iam.grant", "cloudwatch.dimension", "logs.function_log_group", "logs.streams_arn"}
"""`@later` functions that make a part of a requirement (a rule, a grant, a dimension) or a value (a log group's
name), judged through one."""
NO_NONE = {"ec2.ingress_exactly": (net.tcp, "source")}
"""Requirements whose reference cannot be None by their types: where the reference goes (net.tcp's source is a CIDR
or a group). They are left out of the test of None below, and their types are tested instead."""


def _argument(parameter: inspect.Parameter, reference: Any) -> Any:
    """A value for `parameter`: `reference` where it takes a resource, else a plausible plain value."""
    annotation = str(parameter.annotation)
    if parameter.name == "expected":  # ec2.ingress_exactly(*rules)
        return net.tcp(5432, reference)
    if parameter.name == "grants":  # iam.may_exactly(*grants)
        return iam.grant(["sqs:SendMessage"], [reference])
    if "Iterable[Resource" in annotation:
        return [reference]
    if "Resource" in annotation:
        return reference
    if parameter.name == "source_arn":
        return reference
    if "Iterable[str]" in annotation:
        return ["eipalloc-0123456789abcdef0"]
    if "int" in annotation:
        return 3
    return {"principal": "sns.amazonaws.com", "protocol": "sqs", "http_method": "GET", "key": "QueueArn"}.get(
        parameter.name, "x"
    )


def _call(function: Callable[..., Any], reference: Any) -> Any:
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for parameter in inspect.signature(function.__wrapped__).parameters.values():  # type: ignore[attr-defined]
        takes_reference = "Resource" in str(parameter.annotation) or parameter.name in ("expected", "grants")
        if parameter.default is not inspect.Parameter.empty and not (parameter.name == "source_arn" or takes_reference):
            continue
        value = _argument(parameter, reference)
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY or parameter.default is not inspect.Parameter.empty:
            kwargs[parameter.name] = value
        else:
            args.append(value)
    return function(*args, **kwargs)


REQUIREMENTS = sorted(set(LATER) - NOT_REQUIREMENTS)


def _refers(function: Callable[..., Any]) -> bool:
    """Whether the function takes a resource (or a source ARN, a rule or a grant that may hold one)."""
    parameters = inspect.signature(function.__wrapped__).parameters.values()  # type: ignore[attr-defined]
    return any("Resource" in str(p.annotation) or p.name in ("source_arn", "expected", "grants") for p in parameters)


REFERRING = [name for name in REQUIREMENTS if _refers(LATER[name])]


def test_the_walk_finds_the_kits_reference_requirements() -> None:
    assert len(REQUIREMENTS) >= 60, REQUIREMENTS
    assert {"sqs.dead_letter_queue", "sns.subscribed", "cloudtrail.to_bucket", "ec2.ingress_exactly"} <= set(LATER)


@pytest.mark.parametrize("name", REFERRING)
def test_a_missing_output_is_named_never_none(name: str) -> None:
    deferred = _call(LATER[name], _missing_output())
    assert isinstance(deferred, Deferred)
    for resource in RESOURCES:
        outcome = deferred.evaluate(resource, "SQS queue orders")
        issue = outcome.issue("SQS queue orders")
        assert outcome.ok is False, (name, issue)
        assert LABEL in issue and MISSING not in issue, (name, issue)
        assert not re.search(r"\bNone\b", issue) and ".." not in issue, (name, issue)


@pytest.mark.parametrize("name", [name for name in REFERRING if name not in NO_NONE])
def test_a_reference_read_as_none_misses_in_words(name: str) -> None:
    requirement = _call(LATER[name], None)
    assert isinstance(requirement, Requirement)
    for resource in RESOURCES:
        try:
            outcome = requirement.evaluate(resource, "SQS queue orders")
        except Misapplied as error:  # judged on a resource of another kind than its own: the author's error
            assert not _reference_is_required(LATER[name]), (name, error)
            assert isinstance(error.error, KeyError), (name, error)
            continue
        issue = outcome.issue("SQS queue orders")
        assert not re.search(r"\bNone\b", issue) and ".." not in issue, (name, issue)
        if _reference_is_required(LATER[name]):
            assert outcome.ok is False and "cannot be checked" in issue, (name, issue)


@pytest.mark.parametrize("name", sorted(NO_NONE))
def test_a_requirement_left_out_takes_its_reference_where_the_type_admits_no_none(name: str) -> None:
    function, parameter = NO_NONE[name]
    assert name in REFERRING
    annotation = str(inspect.signature(function).parameters[parameter].annotation)
    assert annotation and "None" not in annotation and "Any" not in annotation.split("[")[0], annotation


def _reference_is_required(function: Callable[..., Any]) -> bool:
    parameters = inspect.signature(function.__wrapped__).parameters.values()  # type: ignore[attr-defined]
    return any(
        "Resource" in str(p.annotation) and p.default is inspect.Parameter.empty and "Iterable" not in str(p.annotation)
        for p in parameters
    )


def test_the_sentences_the_issue_quoted_now_name_the_missing_output() -> None:
    queue = {"QueueUrl": "https://sqs.us-east-1.amazonaws.com/123456789012/orders", "RedrivePolicy": ""}
    issue = sqs.dead_letter_queue(_missing_output(), 3).evaluate(queue).issue("SQS queue orders")
    assert issue == f"SQS queue orders: dead-letter queue cannot be checked: nothing was found for {LABEL}."


def test_an_authors_requirement_reading_a_missing_output_misses_naming_it() -> None:
    dlq = _missing_output()
    requirement = require("dead-letter queue", "the DLQ", lambda q: q["RedrivePolicy"] == dlq["QueueArn"])
    outcome = requirement.evaluate({"RedrivePolicy": "x"})
    assert outcome.ok is False
    assert outcome.issue("SQS queue orders") == (
        f"SQS queue orders: dead-letter queue cannot be checked: nothing was found for {LABEL}."
    )
    with pytest.raises(Absent):  # read outside a requirement, it still stops the step as before
        dlq["QueueArn"]


def test_an_authors_requirement_that_raises_is_an_authors_error_naming_itself() -> None:
    requirement = require("retention", 4, lambda q: int(q["MessageRetentionPeriod"]) // 0)
    with pytest.raises(Misapplied) as raised:
        requirement.evaluate({"MessageRetentionPeriod": "60"}, "SQS queue orders")
    message = str(raised.value)
    assert message.startswith("require(...) (check 'retention') cannot be judged on SQS queue orders:")
    assert "ZeroDivisionError" in message and "error in the lab's evaluation" in message


def test_a_value_ending_with_a_dot_ends_the_sentence_once() -> None:
    outcome = require("domain", "example.org.", lambda z: z["Name"]).evaluate({"Name": "example.com."})
    assert outcome.issue("hosted zone Z1") == "Hosted zone Z1: domain should be example.org., but is example.com."
