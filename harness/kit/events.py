"""EventBridge validators: a rule (schedule or event pattern, state) and its targets. Id = the rule's name or ARN
(`arn:aws:events:REGION:ACCOUNT:rule/[BUS/]NAME`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.kit import patterns, refs, schedules
from harness.kit.bounds import Bound
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


RULE = register(Kind("AWS::Events::Rule", "EventBridge rule", _fetch_rule, naming="{noun} {name}"))
"""`describe_rule`'s rule (`Name`, `Arn`, `EventBusName`, `ScheduleExpression` or `EventPattern`, `State`,
`RoleArn`) plus `Targets`, read when first used: `[{"Id", "Arn", "RoleArn", "Input", "DeadLetterConfig": {"Arn"},
"RetryPolicy": {"MaximumRetryAttempts", "MaximumEventAgeInSeconds"}}]`."""


def _fetch_bus(session: Any, bus_id: str) -> Resource:
    name = bus_id.split(":event-bus/", 1)[1] if bus_id.startswith("arn:") else bus_id
    bus = session.client("events").describe_event_bus(Name=name)
    return {k: v for k, v in bus.items() if k != "ResponseMetadata"}


EVENT_BUS = register(Kind("AWS::Events::EventBus", "event bus", _fetch_bus))
"""`describe_event_bus`' bus: `{"Name", "Arn", "Policy": JSON string or absent}`."""


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


@later
def on_bus(bus: Resource | str | None) -> Requirement:
    """The rule is on the event bus `bus` (a described bus, its name or ARN; `default` is the account's own)."""
    name = bus.get("Name") if isinstance(bus, Mapping) else bus
    wanted = str(name).split(":event-bus/", 1)[-1] if name else None
    return require("event bus", wanted, lambda r: r.get("EventBusName") or "default")


def _target(rule: Resource, target: Any) -> dict[str, Any] | None:
    return next((t for t in rule["Targets"] if refs.current().same(refs.ANY, t.get("Arn"), target)), None)


@later
def target_settings(
    target: Resource | str | None,
    *,
    key: str | None = None,
    role: Resource | str | None = None,
    dead_letter_queue: Resource | str | None = None,
    max_attempts: int | Bound | None = None,
) -> Requirement:
    """The rule's target `target` (as `targets` reads it) is delivered with these settings, each if given: the
    IAM role EventBridge assumes (a described role, its name or ARN), the dead-letter queue for events it cannot
    deliver (a described queue, its URL, ARN or name), at most so many retries (a number or a `kit.bounds` bound)."""
    wanted_target = id_of(target, key) if key else target
    parts = [
        *(["role " + str(refs.shown(refs.ROLE, role))] if role is not None else []),
        *(
            ["dead-letter queue " + str(refs.shown(refs.QUEUE, dead_letter_queue))]
            if dead_letter_queue is not None
            else []
        ),
        *([f"{max_attempts} retries"] if max_attempts is not None else []),
    ]

    def actual(rule: Resource) -> dict[str, Any] | None:
        return _target(rule, wanted_target)

    def holds(found: dict[str, Any] | None, _: Any) -> bool:
        if found is None:
            return False
        resolver = refs.current()
        return (
            (role is None or resolver.same(refs.ROLE, found.get("RoleArn"), role))
            and (
                dead_letter_queue is None
                or resolver.same(refs.QUEUE, (found.get("DeadLetterConfig") or {}).get("Arn"), dead_letter_queue)
            )
            and (
                max_attempts is None
                or max_attempts == (found.get("RetryPolicy") or {}).get("MaximumRetryAttempts", 185)
            )
        )

    def explain(found: dict[str, Any] | None) -> str:
        shown = refs.shown(refs.ANY, wanted_target)
        if found is None:
            return f"it has no target {shown}."
        has = [
            f"role {found.get('RoleArn') or 'none'}",
            f"dead-letter queue {(found.get('DeadLetterConfig') or {}).get('Arn') or 'none'}",
            f"{(found.get('RetryPolicy') or {}).get('MaximumRetryAttempts', 185)} retries",
        ]
        return f"its target {shown} should have {', '.join(parts)}; it has {', '.join(has)}."

    return require("target settings", ", ".join(parts) or "present", actual, compare=holds, explain=explain)


# --- ARNs --------------------------------------------------------------------------------------------------------


def _rule_arn(resource: str) -> refs.ArnPart | None:
    """`rule/[BUS/]NAME`: the rule's name, its bus as the version (`default` when none is named)."""
    kind, _, rest = refs.split_resource(resource)
    if kind != "rule":
        return None
    bus, _, name = rest.rpartition("/")
    return kind, name, bus or "default"


refs.reads_arns("events", _rule_arn)
