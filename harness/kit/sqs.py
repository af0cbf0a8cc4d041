"""SQS validators: the queue's attributes, its dead-letter queue (redrive) and its queue policy. Id = QueueUrl."""

from __future__ import annotations

import json
from typing import Any

from harness.kit import kms, refs
from harness.kit.bounds import Bound
from harness.kit.grants import principal_may
from harness.kit.kinds import Kind, Resource, register
from harness.kit.later import later
from harness.kit.require import Requirement, require


def _fetch_queue(session: Any, url: str) -> Resource:
    attributes = session.client("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return {"QueueUrl": url, **attributes}


QUEUE = register(Kind("AWS::SQS::Queue", "SQS queue", _fetch_queue, naming="{noun} {name}"))
"""`get_queue_attributes`' attributes, all strings, with its URL: `{"QueueUrl", "QueueArn", "VisibilityTimeout":
"30", "MessageRetentionPeriod", "DelaySeconds", "FifoQueue", "KmsMasterKeyId", "SqsManagedSseEnabled",
"RedrivePolicy": JSON text, "Policy": JSON text}`."""


def _number(key: str) -> Any:
    return lambda queue: int(queue[key]) if key in queue else None


def visibility_timeout(seconds: int | Bound) -> Requirement:
    """The visibility timeout, in seconds (or a `kit.bounds` bound: `at_least(60)`)."""
    return require("visibility timeout (s)", seconds, _number("VisibilityTimeout"))


def retention(seconds: int | Bound) -> Requirement:
    """Messages are kept `seconds` (MessageRetentionPeriod; 345600 = 4 days by default)."""
    return require("message retention (s)", seconds, _number("MessageRetentionPeriod"))


def delay(seconds: int | Bound) -> Requirement:
    """The delivery delay, in seconds."""
    return require("delivery delay (s)", seconds, _number("DelaySeconds"))


def fifo(enabled: bool = True) -> Requirement:
    """A FIFO queue."""
    return require("FIFO", enabled, lambda q: q.get("FifoQueue") == "true")


def encrypted() -> Requirement:
    """Server-side encryption: SQS managed (SSE-SQS) or a KMS key (SSE-KMS)."""
    return require(
        "encryption",
        "SSE-SQS or SSE-KMS",
        lambda q: (
            "SSE-KMS" if q.get("KmsMasterKeyId") else "SSE-SQS" if q.get("SqsManagedSseEnabled") == "true" else None
        ),
        compare=lambda actual, _: actual is not None,
    )


@later
def encrypted_with(key: Resource | str | None) -> Requirement:
    """SSE-KMS with the KMS key: a described key, its id or ARN, an alias or alias ARN, whichever the queue was
    given on either side (`alias/aws/sqs` is the AWS managed key; SSE-SQS uses no KMS key, so it misses)."""
    return refs.refers("KMS key", kms.KEY_REFERENCE, key, lambda q: q.get("KmsMasterKeyId"))


def _redrive(queue: Resource) -> dict[str, Any]:
    return json.loads(queue.get("RedrivePolicy") or "{}")


@later
def dead_letter_queue(target: Resource | str | None, max_receives: int | Bound | None = None) -> Requirement:
    """Failed messages go to the dead-letter queue `target` (a described queue, its URL, ARN or name), after
    `max_receives` receives if given: a number, or a bound where the lab says "at most"
    (`max_receives=at_most(5)`, from `kit.bounds`)."""
    arn = refs.shown(refs.QUEUE, target)
    wanted = f"{arn} after {max_receives} receives" if max_receives else arn

    def actual(queue: Resource) -> str | None:
        redrive = _redrive(queue)
        if not redrive:
            return None
        found = redrive.get("deadLetterTargetArn")
        return f"{found} after {int(redrive.get('maxReceiveCount', 0))} receives" if max_receives else found

    def same(found: str | None, _: str) -> bool:
        if found is None:
            return False
        queue, _, receives = found.partition(" after ")
        count = receives.removesuffix(" receives")
        return refs.current().same(refs.QUEUE, queue, target) and (
            not max_receives or (count.isdigit() and max_receives == int(count))
        )

    return require(
        "dead-letter queue",
        wanted,
        actual,
        compare=same,
        hint="Set the queue's redrive policy to the dead-letter queue.",
    )


@later
def accepts_from(principal: str, source_arn: Resource | str | None = None) -> Requirement:
    """The queue policy lets `principal` (e.g. `sns.amazonaws.com`) send messages to this queue, from `source_arn` if
    given (an ARN, or a described resource or output: its ARN), as IAM evaluates it (`grants.may`)."""
    return principal_may(
        "sqs:SendMessage",
        principal,
        lambda q: q.get("Policy"),
        source_arn=source_arn,
        hint=f"Add a queue policy statement allowing sqs:SendMessage to {principal}.",
    )


# --- ARNs --------------------------------------------------------------------------------------------------------


def _queue_arn(resource: str) -> refs.ArnPart | None:
    """`arn:aws:sqs:REGION:ACCOUNT:NAME`: a queue."""
    return ("queue", resource, None) if "/" not in resource else None


refs.reads_arns("sqs", _queue_arn)
