"""One requirement for every resource policy (function, queue, topic, key): "PRINCIPAL may ACTION on it"."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from harness.kit.kinds import Resource
from harness.kit.policy import PolicyError, allowed_principals, parse_policy, principal_of
from harness.kit.require import Requirement, require


def principal_may(
    action: str,
    principal: str,
    document: Callable[[Resource], str | dict[str, Any] | None],
    *,
    source_arn: str | None = None,
    hint: str,
) -> Requirement:
    """The resource policy `document(resource)` lets `principal` (a service such as `sns.amazonaws.com`, an ARN,
    or an account: its id or root ARN alike) perform `action`, from `source_arn` if given (the statement's
    aws:SourceArn condition admits it)."""
    from_where = f" from {source_arn}" if source_arn else ""

    def allowed(resource: Resource) -> list[str] | str:
        raw = document(resource)
        if not raw:
            return []
        try:
            policy = parse_policy(json.loads(raw) if isinstance(raw, str) else raw)
        except (PolicyError, json.JSONDecodeError) as error:
            return f"its resource policy is not valid: {error}"
        return allowed_principals(policy, action, source_arn)

    return require(
        f"may {action}",
        principal,
        allowed,
        compare=lambda actual, expected: (
            isinstance(actual, list) and (principal_of(expected) in map(principal_of, actual) or "*" in actual)
        ),
        explain=lambda actual: (
            f"{actual}."
            if isinstance(actual, str)
            else f"its resource policy lets {', '.join(actual) or 'no one'} {action}{from_where}, not {principal}."
        ),
        hint=hint,
    )
