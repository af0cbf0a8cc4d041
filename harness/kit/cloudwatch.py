"""CloudWatch alarm validators: what the alarm watches, when it fires and whom it notifies. Id = the alarm name."""

from __future__ import annotations

from typing import Any

from harness.kit import refs
from harness.kit.bounds import Bound
from harness.kit.kinds import Kind, Resource, first, register
from harness.kit.later import later
from harness.kit.require import Requirement, attribute, require


def _fetch_alarm(session: Any, name: str) -> Resource | None:
    return first(session.client("cloudwatch").describe_alarms(AlarmNames=[name])["MetricAlarms"])


ALARM = register(Kind("AWS::CloudWatch::Alarm", "alarm", _fetch_alarm))
"""`describe_alarms`' metric alarm: `{"AlarmName", "Namespace", "MetricName", "Dimensions": [{"Name", "Value"}],
"Statistic", "Period", "EvaluationPeriods", "Threshold", "ComparisonOperator", "AlarmActions"}`."""


def metric(namespace: str, name: str) -> Requirement:
    """Watches `namespace`/`name`, e.g. ("AWS/Lambda", "Errors")."""
    return require("metric", f"{namespace}/{name}", lambda a: f"{a.get('Namespace')}/{a.get('MetricName')}")


@later
def dimension(name: str, value: str) -> Requirement:
    """Watches the metric of one resource, e.g. dimension("FunctionName", "orders-api")."""
    return require(
        f"dimension {name}",
        value,
        lambda a: next((d["Value"] for d in a.get("Dimensions", []) if d["Name"] == name), None),
    )


def watches_function(function: Resource | str | None, metric_name: str = "Errors") -> list[Requirement]:
    """The alarm watches the Lambda function's `metric_name` (AWS/Lambda, dimension FunctionName). The function
    may be described or named by its name or ARN; the dimension itself must hold the name, as CloudWatch
    publishes it (a dimension holding the ARN watches a metric that does not exist)."""
    return [metric("AWS/Lambda", metric_name), dimension("FunctionName", _function_name(function))]


@later
def _function_name(function: Resource | str | None) -> str:
    """A function's name, from a described function, its name or its ARN."""
    named = refs.current().identity(refs.FUNCTION, function)
    return named.name if named else ""


def statistic(value: str = "Sum") -> Requirement:
    """The statistic the alarm evaluates: `Sum`, `Average`, `Maximum`..."""
    return attribute("statistic", "Statistic", value)


def period(seconds: int | Bound) -> Requirement:
    """The period of each evaluation, in seconds."""
    return attribute("period (s)", "Period", seconds)


def evaluation_periods(count: int | Bound) -> Requirement:
    """How many periods are evaluated."""
    return attribute("evaluation periods", "EvaluationPeriods", count)


def threshold(value: float, comparison: str = "GreaterThanOrEqualToThreshold") -> Requirement:
    """Fires when the statistic compares to `value` as `comparison` says."""
    return require(
        "threshold",
        f"{comparison} {float(value):g}",
        lambda a: f"{a.get('ComparisonOperator')} {float(a.get('Threshold', 0)):g}",
    )


@later
def notifies(topic: Resource | str | None) -> Requirement:
    """Sends its ALARM notification to the topic (a described topic, its ARN or name)."""
    return refs.refers_among("alarm actions", refs.TOPIC, topic, lambda a: sorted(a.get("AlarmActions", [])))


def actions_enabled(enabled: bool = True) -> Requirement:
    """The alarm's actions are enabled."""
    return attribute("actions enabled", "ActionsEnabled", enabled)
