"""Requirements on a "string" output: a value the learner hands over (an ARN, a URL, a name), not a resource.

    arn = step.value("01_01_queue_arn", queue.get("QueueArn"), [values.is_arn("sqs"), values.equals(queue["QueueArn"])])

Each is judged on `{"Value": value}`, as `Step.value` gives it.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from harness.kit.require import Requirement, require

ARN = re.compile(
    r"arn:(?P<partition>aws[a-z-]*):(?P<service>[a-z0-9-]+):(?P<region>[a-z0-9-]*):(?P<account>\d{12}|):.+"
)


def _value(resource: dict) -> object:
    return resource.get("Value")


def equals(expected: str, *, check: str = "value") -> Requirement:
    """The value is exactly `expected` (the ARN, URL or name the learner's resource has)."""
    return require(check, expected, _value)


def matches(pattern: str, *, check: str = "value") -> Requirement:
    """The whole value matches the regular expression `pattern`."""
    return require(
        check,
        pattern,
        _value,
        compare=lambda actual, wanted: isinstance(actual, str) and re.fullmatch(wanted, actual) is not None,
    )


def is_arn(service: str | None = None) -> Requirement:
    """The value is an ARN (of `service`, if given: "sqs", "iam"...)."""

    def kind(resource: dict) -> str | None:
        found = ARN.fullmatch(str(_value(resource) or ""))
        return None if found is None else found["service"]

    return require(
        "ARN of",
        service or "any service",
        kind,
        compare=lambda actual, wanted: actual is not None and (service is None or actual == wanted),
    )


def is_url(scheme: str = "https") -> Requirement:
    """The value is a URL with `scheme` and a host."""

    def parts(resource: dict) -> str | None:
        split = urlsplit(str(_value(resource) or ""))
        return split.scheme if split.netloc else None

    return require("URL scheme", scheme, parts)
