"""SNS validators: the topic (encryption, subscriptions, topic policy; id = TopicArn) and a subscription
(protocol, endpoint, filter, raw delivery; id = SubscriptionArn)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from harness.kit import kms, patterns, refs
from harness.kit.grants import principal_may
from harness.kit.kinds import Kind, LazyResource, Resource, id_of, register
from harness.kit.later import later
from harness.kit.require import Requirement, require


def _fetch_topic(session: Any, arn: str) -> Resource:
    client = session.client("sns")
    attributes = client.get_topic_attributes(TopicArn=arn)["Attributes"]

    def subscriptions() -> list[dict[str, Any]]:
        pages = client.get_paginator("list_subscriptions_by_topic").paginate(TopicArn=arn)
        return [s for page in pages for s in page["Subscriptions"]]

    return LazyResource({"TopicArn": arn, **attributes}, {"Subscriptions": subscriptions})


def _fetch_subscription(session: Any, arn: str) -> Resource:
    return {
        "SubscriptionArn": arn,
        **session.client("sns").get_subscription_attributes(SubscriptionArn=arn)["Attributes"],
    }


TOPIC = register(Kind("AWS::SNS::Topic", "SNS topic", _fetch_topic, naming="{noun} {name}"))
"""`get_topic_attributes`' attributes, all strings (`TopicArn`, `KmsMasterKeyId`, `Policy`: JSON text, `FifoTopic`),
plus `Subscriptions` (`[{"Protocol", "Endpoint", "SubscriptionArn"}]`), read when first used."""
SUBSCRIPTION = register(Kind("AWS::SNS::Subscription", "subscription", _fetch_subscription))
"""`get_subscription_attributes`' attributes, all strings: `SubscriptionArn`, `TopicArn`, `Protocol`, `Endpoint`,
`RawMessageDelivery` (`"true"`), `FilterPolicy` and `RedrivePolicy` (JSON strings), `FilterPolicyScope`,
`PendingConfirmation`."""


def encrypted() -> Requirement:
    """The topic is encrypted with a KMS key (any key)."""
    return require("KMS key", "set", lambda t: t.get("KmsMasterKeyId"), compare=lambda actual, _: bool(actual))


@later
def encrypted_with(key: Resource | str | None) -> Requirement:
    """The topic is encrypted with the KMS key: a described key, its id or ARN, an alias or alias ARN, whichever the
    topic was given on either side (`alias/aws/sns` is the AWS managed key)."""
    return refs.refers("KMS key", kms.KEY_REFERENCE, key, lambda t: t.get("KmsMasterKeyId"))


def _endpoint(value: Resource | str | None, key: str) -> Resource | str | None:
    """A described resource's endpoint under `key` if it has one there, else the resource itself (read as any
    resource's ARN); a string as it is."""
    return id_of(value, key) if isinstance(value, Mapping) and value.get(key) else value


def _delivers_to(actual: str | None, endpoint: Any) -> bool:
    """An endpoint that is an ARN (sqs, lambda, firehose, application) names the resource `endpoint` names; any
    other (an address, a URL, a phone number) is compared as given."""
    if actual is None:
        return False
    if actual.startswith("arn:"):
        return refs.current().same(refs.ANY, actual, endpoint)
    return actual.strip() == str(refs.shown(refs.ANY, endpoint)).strip()


@later
def subscribed(protocol: str, endpoint: Resource | str | None, *, key: str = "QueueArn") -> Requirement:
    """The topic delivers to `endpoint` over `protocol`: ("sqs", a described queue, its URL or ARN), ("lambda", a
    described function, its name or ARN), ("email", an address); a confirmed or pending subscription counts."""
    target = _endpoint(endpoint, key)
    wanted = f"{protocol.lower()} {refs.shown(refs.ANY, target)}"
    return require(
        "subscriptions",
        wanted,
        lambda t: sorted(f"{s['Protocol']} {s['Endpoint']}" for s in t["Subscriptions"]),
        compare=lambda found, _: any(
            p.lower() == protocol.lower() and _delivers_to(e, target)
            for p, _, e in (item.partition(" ") for item in found)
        ),
    )


@later
def accepts_from(principal: str, source_arn: Resource | str | None = None) -> Requirement:
    """The topic policy lets `principal` (e.g. `events.amazonaws.com`) publish to this topic, from `source_arn` if
    given (an ARN, or a described resource or output: its ARN), as IAM evaluates it (`grants.may`)."""
    return principal_may(
        "sns:Publish",
        principal,
        lambda t: t.get("Policy"),
        source_arn=source_arn,
        hint=f"Add a topic policy statement allowing sns:Publish to {principal}.",
    )


def protocol(value: str) -> Requirement:
    """The subscription's protocol, e.g. `sqs`, `lambda`, `email` (in any case)."""
    return require("protocol", value.lower(), lambda s: str(s.get("Protocol", "")).lower() or None)


@later
def endpoint(value: Resource | str | None, *, key: str = "QueueArn") -> Requirement:
    """The subscription delivers to `value`: a described resource or its ARN (a queue's URL, a function's name),
    or an address or URL for the other protocols."""
    target = _endpoint(value, key)
    return require(
        "endpoint",
        refs.shown(refs.ANY, target),
        lambda s: s.get("Endpoint"),
        compare=lambda actual, _: _delivers_to(actual, target),
    )


@later
def on_topic(topic: Resource | str | None) -> Requirement:
    """The subscription is on the topic (a described topic, its ARN or name)."""
    return refs.refers("topic", refs.TOPIC, topic, lambda s: s.get("TopicArn"))


def raw_delivery(enabled: bool = True) -> Requirement:
    """Raw message delivery is on."""
    return require("raw message delivery", enabled, lambda s: s.get("RawMessageDelivery") == "true")


def filter_policy(policy: dict[str, Any]) -> Requirement:
    """The subscription's filter policy is exactly `policy` (compared as JSON, a field's alternatives in any
    order)."""
    return patterns.exactly("filter policy", policy, lambda subscription: subscription.get("FilterPolicy"))


@later
def redrives_to(queue: Resource | str | None) -> Requirement:
    """Messages the subscription cannot deliver go to the dead-letter queue `queue` (a described queue, its URL,
    ARN or name), as its `RedrivePolicy` says."""
    return refs.refers(
        "dead-letter queue",
        refs.QUEUE,
        queue,
        lambda s: (json.loads(s.get("RedrivePolicy") or "{}") or {}).get("deadLetterTargetArn"),
        hint="Set the subscription's redrive policy to the dead-letter queue.",
    )


def filter_scope(scope: str = "MessageAttributes") -> Requirement:
    """What the filter policy is matched against: `MessageAttributes` (SNS's default when none is set) or
    `MessageBody`."""
    return require(
        "filter policy scope",
        scope,
        lambda s: s.get("FilterPolicyScope") or ("MessageAttributes" if s.get("FilterPolicy") else None),
    )


# --- ARNs --------------------------------------------------------------------------------------------------------


def _sns_arn(resource: str) -> refs.ArnPart:
    """`...:sns:REGION:ACCOUNT:TOPIC` is a topic, `...:TOPIC:UUID` a subscription."""
    return ("topic" if "/" not in resource and ":" not in resource else "subscription"), resource, None


refs.reads_arns("sns", _sns_arn)
