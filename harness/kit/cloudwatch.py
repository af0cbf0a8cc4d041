"""CloudWatch alarm validators: what the alarm watches, when it fires and whom it notifies. Id = the alarm name."""

from __future__ import annotations

import math
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


COUNT_METRICS: dict[str, frozenset[str]] = {
    "AWS/Lambda": frozenset({"Invocations", "Errors", "Throttles", "DeadLetterErrors", "DestinationDeliveryFailures"}),
    "AWS/ApiGateway": frozenset({"Count", "4XXError", "5XXError", "4xx", "5xx"}),
    "AWS/SQS": frozenset(
        {
            "NumberOfMessagesSent",
            "NumberOfMessagesReceived",
            "NumberOfMessagesDeleted",
            "NumberOfEmptyReceives",
            "ApproximateNumberOfMessagesVisible",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
        }
    ),
    "AWS/SNS": frozenset(
        {"NumberOfMessagesPublished", "NumberOfNotificationsDelivered", "NumberOfNotificationsFailed"}
    ),
    "AWS/DynamoDB": frozenset({"ThrottledRequests", "UserErrors", "SystemErrors"}),
    "AWS/ApplicationELB": frozenset(
        {
            "RequestCount",
            "HealthyHostCount",
            "UnHealthyHostCount",
            "HTTPCode_Target_4XX_Count",
            "HTTPCode_Target_5XX_Count",
            "HTTPCode_ELB_4XX_Count",
            "HTTPCode_ELB_5XX_Count",
        }
    ),
    "AWS/EC2": frozenset({"StatusCheckFailed", "StatusCheckFailed_Instance", "StatusCheckFailed_System"}),
    "AWS/States": frozenset({"ExecutionsFailed", "ExecutionsTimedOut", "ExecutionThrottled"}),
    "AWS/Events": frozenset({"Invocations", "FailedInvocations"}),
}
"""Metrics whose every data point is a whole number (they count events, messages or hosts), by namespace."""

WHOLE_STATISTICS = frozenset({"Sum", "Minimum", "Maximum"})
"""Statistics that stay whole numbers on a count metric (`Average` and percentiles do not)."""

_ORDERED = {
    "GreaterThanThreshold": (">", 1),
    "GreaterThanOrEqualToThreshold": (">", 0),
    "LessThanThreshold": ("<", -1),
    "LessThanOrEqualToThreshold": ("<", 0),
}


def integral(alarm: Resource) -> bool:
    """Whether the statistic the alarm compares is always a whole number: `SampleCount` (a count of data points)
    of any metric, or `Sum`, `Minimum` or `Maximum` of a count metric (`COUNT_METRICS`, e.g. AWS/Lambda `Errors`).
    A metric-math or percentile alarm is not."""
    statistic = alarm.get("Statistic")
    if alarm.get("Metrics") or alarm.get("ExtendedStatistic") or statistic is None:
        return False
    if statistic == "SampleCount":
        return True
    counted = alarm.get("MetricName") in COUNT_METRICS.get(alarm.get("Namespace") or "", frozenset())
    return statistic in WHOLE_STATISTICS and counted


def _fires_when(comparison: str | None, value: float, whole: bool) -> tuple[str | None, float]:
    """When an alarm fires, as one canonical comparison: on whole numbers `> 0` is `>= 1` and `< 1` is `<= 0`
    (each read as `>= n` or `<= n`); otherwise the comparison as written."""
    if not whole or comparison not in _ORDERED:
        return comparison, value
    direction, strict = _ORDERED[comparison]
    if direction == ">":
        return ">=", float(math.floor(value) + 1 if strict else math.ceil(value))
    return "<=", float(math.ceil(value) - 1 if strict else math.floor(value))


class _Comparison(str):
    """An alarm's comparison as written (`GreaterThanThreshold 0`), remembering when it fires (`_fires_when`)."""

    whole: bool
    fires: tuple[str | None, float]

    def __new__(cls, comparison: str | None, value: float, whole: bool) -> _Comparison:
        shown = super().__new__(cls, f"{comparison} {value:g}")
        shown.whole = whole
        shown.fires = _fires_when(comparison, value, whole)
        return shown


def threshold(value: float, comparison: str = "GreaterThanOrEqualToThreshold") -> Requirement:
    """Fires when the statistic compares to `value` as `comparison` says. Where the statistic is always a whole
    number (`integral`), an equivalent comparison passes: `GreaterThanThreshold 0` is `GreaterThanOrEqualToThreshold
    1`, `LessThanThreshold 1` is `LessThanOrEqualToThreshold 0`."""
    return require(
        "threshold",
        f"{comparison} {float(value):g}",
        lambda a: _Comparison(a.get("ComparisonOperator"), float(a.get("Threshold", 0)), integral(a)),
        compare=lambda actual, _: actual.fires == _fires_when(comparison, float(value), actual.whole),
    )


@later
def notifies(topic: Resource | str | None) -> Requirement:
    """Sends its ALARM notification to the topic (a described topic, its ARN or name)."""
    return refs.refers_among("alarm actions", refs.TOPIC, topic, lambda a: sorted(a.get("AlarmActions", [])))


def actions_enabled(enabled: bool = True) -> Requirement:
    """The alarm's actions are enabled."""
    return attribute("actions enabled", "ActionsEnabled", enabled)
