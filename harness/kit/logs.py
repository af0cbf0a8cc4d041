"""CloudWatch Logs validators: the log group (retention, KMS key) and its metric filters. Id = the group's name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.kit import kms, refs
from harness.kit.bounds import Bound
from harness.kit.kinds import Kind, LazyResource, Resource, first, register
from harness.kit.later import later
from harness.kit.require import Requirement, includes, require


def _fetch_log_group(session: Any, name: str) -> Resource | None:
    client = session.client("logs")
    pages = client.get_paginator("describe_log_groups").paginate(logGroupNamePrefix=name)
    group = first([g for page in pages for g in page["logGroups"] if g["logGroupName"] == name])
    if group is None:
        return None

    def metric_filters() -> list[dict[str, Any]]:
        pages = client.get_paginator("describe_metric_filters").paginate(logGroupName=name)
        return [f for page in pages for f in page["metricFilters"]]

    return LazyResource(group, {"MetricFilters": metric_filters})


LOG_GROUP = register(Kind("AWS::Logs::LogGroup", "log group", _fetch_log_group))
"""`describe_log_groups`' group (`logGroupName`, `arn` ending `:*`, `retentionInDays` when set, `kmsKeyId`) plus
`MetricFilters` (`[{"filterName", "filterPattern", "metricTransformations"}]`), read when first used."""


@later
def function_log_group(function: Resource | str) -> str:
    """The log group a Lambda function writes to: `/aws/lambda/NAME` (a described function, its name or ARN)."""
    name = function["FunctionName"] if isinstance(function, Mapping) else function.split(":function:")[-1].split(":")[0]
    return f"/aws/lambda/{name}"


@later
def streams_arn(function: Resource, group_name: str | None = None) -> str:
    """The ARN of every log stream of `group_name` (default: the function's own log group), in the described
    function's partition, region and account: the Resource a role needs for logs:PutLogEvents."""
    _, partition, _, region, account = function["FunctionArn"].split(":")[:5]
    group = group_name or function_log_group(function)
    return f"arn:{partition}:logs:{region}:{account}:log-group:{group}:log-stream:*"


@later
def named(name: str) -> Requirement:
    """The log group's name is exactly `name` (e.g. `function_log_group(function)`)."""
    return require("name", name, lambda g: g.get("logGroupName"))


def retention(days: int | Bound) -> Requirement:
    """Events expire after `days` (a group that never expires has no retention set)."""
    return require(
        "retention (days)",
        days,
        lambda g: g.get("retentionInDays"),
        explain=lambda actual: f"it keeps events {'forever' if actual is None else f'{actual} days'}, not {days} days.",
        hint="Edit the log group's retention setting.",
    )


@later
def encrypted_with(key: Resource | str | None) -> Requirement:
    """Encrypted with the KMS key: a described key, its id or ARN, an alias or alias ARN."""
    return refs.refers("KMS key", kms.KEY_REFERENCE, key, lambda g: g.get("kmsKeyId"))


def metric_filter(metric: str, namespace: str, *, pattern: str | None = None) -> Requirement:
    """A metric filter publishes `namespace`/`metric` (matching `pattern`, if given)."""

    def published(group: Resource) -> list[str]:
        return sorted(
            f"{t['metricNamespace']}/{t['metricName']}"
            for f in group["MetricFilters"]
            if pattern is None or f.get("filterPattern", "").strip() == pattern.strip()
            for t in f.get("metricTransformations", [])
        )

    with_pattern = f" with pattern {pattern!r}" if pattern is not None else ""
    return includes(
        "metric filters",
        f"{namespace}/{metric}",
        published,
        explain=lambda actual: (
            f"its metric filters{with_pattern} publish {', '.join(actual) or 'nothing'}, not {namespace}/{metric}."
        ),
    )


# --- ARNs --------------------------------------------------------------------------------------------------------


def _log_group_arn(resource: str) -> refs.ArnPart | None:
    """`log-group:NAME[:*]` or `log-group:NAME:log-stream:STREAM`: the group."""
    kind, _, rest = refs.split_resource(resource)
    return (kind, rest.split(":log-stream:")[0].removesuffix(":*"), None) if kind == "log-group" else None


refs.reads_arns("logs", _log_group_arn)
