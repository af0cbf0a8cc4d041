"""EventBridge validators: a rule (schedule or event pattern, state) and its targets. Id = the rule's name or ARN
(`arn:aws:events:REGION:ACCOUNT:rule/[BUS/]NAME`)."""

from __future__ import annotations

import json
from typing import Any

from harness.kit.kinds import Kind, LazyResource, Resource, id_of, register
from harness.kit.require import Requirement, attribute, includes, require


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


def schedule(expression: str) -> Requirement:
    """Runs on `expression`, e.g. `rate(5 minutes)` or `cron(0 12 * * ? *)`."""
    return attribute("schedule", "ScheduleExpression", expression)


def event_pattern(pattern: dict[str, Any]) -> Requirement:
    """Matches events by exactly this pattern (compared as JSON, not as text)."""
    return require("event pattern", pattern, lambda r: json.loads(r["EventPattern"]) if r.get("EventPattern") else None)


def enabled(value: bool = True) -> Requirement:
    return require("state", "ENABLED" if value else "DISABLED", lambda r: r.get("State"))


def targets(target: Resource | str | None, *, key: str = "Arn") -> Requirement:
    """One of the rule's targets is `target` (a described resource read under `key`, or an ARN)."""
    arn = id_of(target, key)
    return includes(
        "targets",
        arn,
        lambda r: sorted(t["Arn"] for t in r["Targets"]),
    )
