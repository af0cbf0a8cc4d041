"""EventBridge validators: a rule (schedule or event pattern, state) and its targets. Id = the rule's name or ARN
(`arn:aws:events:REGION:ACCOUNT:rule/[BUS/]NAME`)."""

from __future__ import annotations

from typing import Any

from harness.kit import patterns, refs, schedules
from harness.kit.kinds import Kind, LazyResource, Resource, id_of, register
from harness.kit.later import later
from harness.kit.require import Requirement, require


def _fetch_rule(session: Any, rule_id: str) -> Resource:
    client = session.client("events")
    bus, name = "default", rule_id
    if rule_id.startswith("arn:"):
        path = rule_id.split(":", 5)[5].removeprefix("rule/")
        bus, _, name = path.rpartition("/")
        bus = bus or "default"
    rule = client.describe_rule(Name=name, EventBusName=bus)

    def targets() -> list[dict[str, Any]]:
        pages = client.get_paginator("list_targets_by_rule").paginate(Rule=name, EventBusName=bus)
        return [t for page in pages for t in page["Targets"]]

    return LazyResource(rule, {"Targets": targets})


RULE = register(Kind("AWS::Events::Rule", "EventBridge rule", _fetch_rule))


def _fires_like(actual: str | None, wanted: schedules.Schedule) -> bool:
    """Whether the rule's expression fires as `wanted` does (an expression EventBridge would refuse: never)."""
    try:
        return actual is not None and schedules.same_firing(schedules.parse(actual), wanted)
    except schedules.ScheduleError:
        return False


def schedule(expression: str) -> Requirement:
    """Runs on `expression`, compared by when it fires: `rate(5 minutes)` is `cron(0/5 * * * ? *)` and
    `cron(*/5 * * * ? *)`, `rate(1 hour)` is `rate(60 minutes)`, `cron(0 12 ? * MON-FRI *)` is
    `cron(0 12 ? * 2-6 *)` (AWS's six-field cron, `?`, `L`, `W`, `#` and names; see `kit.schedules`). An
    expression EventBridge would refuse is the author's error, raised at once."""
    wanted = schedules.parse(expression)
    return require(
        "schedule",
        expression,
        lambda r: r.get("ScheduleExpression"),
        compare=lambda actual, _: _fires_like(actual, wanted),
    )


def event_pattern(pattern: dict[str, Any]) -> Requirement:
    """Matches events by exactly this pattern (compared as JSON, a field's alternatives in any order)."""
    return patterns.exactly("event pattern", pattern, lambda rule: rule.get("EventPattern"))


def enabled(value: bool = True) -> Requirement:
    """The rule is enabled (`ENABLED`, or `ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS`), or disabled with
    `value=False`."""
    return require(
        "state",
        "ENABLED" if value else "DISABLED",
        lambda r: r.get("State"),
        compare=lambda actual, _: str(actual).startswith("ENABLED") == value,
    )


@later
def targets(target: Resource | str | None, *, key: str | None = None) -> Requirement:
    """One of the rule's targets is `target`: a described resource (its ARN; `key` names another attribute), an
    ARN, a queue URL, or a function's name."""
    return refs.refers_among(
        "targets", refs.ANY, id_of(target, key) if key else target, lambda r: sorted(t["Arn"] for t in r["Targets"])
    )
