"""Step Functions validators: a state machine (type, role, logging destination and level, tracing). Id = its ARN."""

from __future__ import annotations

from typing import Any

from harness.kit import refs
from harness.kit.kinds import Kind, Resource, register
from harness.kit.later import later
from harness.kit.require import Requirement, require


def _fetch_state_machine(session: Any, arn: str) -> Resource:
    machine = session.client("stepfunctions").describe_state_machine(stateMachineArn=arn)
    return {k: v for k, v in machine.items() if k != "ResponseMetadata"}


STATE_MACHINE = register(
    Kind("AWS::StepFunctions::StateMachine", "state machine", _fetch_state_machine, naming="{noun} {name}")
)
"""`describe_state_machine`'s answer: `{"stateMachineArn", "name", "type": "STANDARD" | "EXPRESS", "roleArn",
"definition", "loggingConfiguration": {"level": "ALL" | "ERROR" | "FATAL" | "OFF", "includeExecutionData",
"destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn"}}]}, "tracingConfiguration": {"enabled"}}`."""

LEVELS = ("OFF", "FATAL", "ERROR", "ALL")
"""Logging levels, from the least logged to the most: `ERROR` logs fatal errors too, `ALL` everything."""


def machine_type(value: str = "STANDARD") -> Requirement:
    """The workflow type: `STANDARD` or `EXPRESS` (in any case)."""
    return require("type", value.upper(), lambda m: str(m.get("type", "")).upper() or None)


@later
def execution_role(role: Resource | str | None) -> Requirement:
    """The state machine runs as the IAM role (a described role, its name or ARN)."""
    return refs.refers("execution role", refs.ROLE, role, lambda m: m.get("roleArn"))


def _log_group(machine: Resource) -> str | None:
    destinations = (machine.get("loggingConfiguration") or {}).get("destinations") or []
    found = [((d.get("cloudWatchLogsLogGroup") or {}).get("logGroupArn")) for d in destinations]
    return next((arn for arn in found if arn), None)


@later
def logs_to(log_group: Resource | str | None, level: str = "ALL", *, execution_data: bool | None = None) -> Requirement:
    """Executions are logged to the log group (a described group, its name or ARN: AWS adds `:*` to it) at `level`
    or more (`ERROR` is met by `ALL`), including execution data if `execution_data` says so."""
    wanted_level = level.upper()
    if wanted_level not in LEVELS:
        raise ValueError(f"logs_to: level is one of {', '.join(LEVELS)}, not {level!r}")
    shown = f"{refs.shown(refs.LOG_GROUP, log_group)} at {wanted_level}"
    if execution_data is not None:
        shown += " with execution data" if execution_data else " without execution data"

    def actual(machine: Resource) -> str | None:
        config = machine.get("loggingConfiguration") or {}
        group = _log_group(machine)
        if group is None:
            return None
        data = " with execution data" if config.get("includeExecutionData") else " without execution data"
        return f"{group} at {str(config.get('level', 'OFF')).upper()}{data if execution_data is not None else ''}"

    def holds(found: str | None, _: str) -> bool:
        if found is None:
            return False
        group, _, rest = found.partition(" at ")
        found_level = rest.split(" ", 1)[0]
        return (
            refs.current().same(refs.LOG_GROUP, group, log_group)
            and found_level in LEVELS
            and LEVELS.index(found_level) >= LEVELS.index(wanted_level)
            and (execution_data is None or rest.endswith(" with execution data") is execution_data)
        )

    return require("logging", shown, actual, compare=holds, hint="Turn on logging to the log group.")


def tracing(enabled: bool = True) -> Requirement:
    """X-Ray tracing is on."""
    return require("X-Ray tracing", enabled, lambda m: bool((m.get("tracingConfiguration") or {}).get("enabled")))
