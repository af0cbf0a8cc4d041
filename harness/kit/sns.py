"""SNS validators: the topic (encryption, subscriptions, topic policy; id = TopicArn) and a subscription
(protocol, endpoint, filter, raw delivery; id = SubscriptionArn)."""

from __future__ import annotations

import json
from typing import Any

from harness.kit.grants import principal_may
from harness.kit.kinds import Kind, LazyResource, Resource, id_of, register
from harness.kit.require import Requirement, includes, require


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


TOPIC = register(Kind("AWS::SNS::Topic", "topic", _fetch_topic))
SUBSCRIPTION = register(Kind("AWS::SNS::Subscription", "subscription", _fetch_subscription))


def encrypted() -> Requirement:
    return require("KMS key", "set", lambda t: t.get("KmsMasterKeyId"), compare=lambda actual, _: bool(actual))


def subscribed(protocol: str, endpoint: Resource | str | None, *, key: str = "QueueArn") -> Requirement:
    """The topic delivers to `endpoint` over `protocol` (e.g. ("sqs", queue ARN), ("lambda", function ARN),
    ("email", address)); a confirmed or pending subscription counts."""
    wanted = f"{protocol} {id_of(endpoint, key)}"
    return includes(
        "subscriptions",
        wanted,
        lambda t: sorted(f"{s['Protocol']} {s['Endpoint']}" for s in t["Subscriptions"]),
    )


def accepts_from(principal: str, source_arn: str | None = None) -> Requirement:
    """The topic policy lets `principal` (e.g. `events.amazonaws.com`) publish, from `source_arn` if given."""
    return principal_may(
        "sns:Publish",
        principal,
        lambda t: t.get("Policy"),
        source_arn=source_arn,
        hint=f"Add a topic policy statement allowing sns:Publish to {principal}.",
    )


def protocol(value: str) -> Requirement:
    return require("protocol", value, lambda s: s.get("Protocol"))


def endpoint(value: Resource | str | None, *, key: str = "QueueArn") -> Requirement:
    return require("endpoint", id_of(value, key), lambda s: s.get("Endpoint"))


def on_topic(topic: Resource | str | None) -> Requirement:
    return require("topic", id_of(topic, "TopicArn"), lambda s: s.get("TopicArn"))


def raw_delivery(enabled: bool = True) -> Requirement:
    return require("raw message delivery", enabled, lambda s: s.get("RawMessageDelivery") == "true")


def filter_policy(policy: dict[str, Any]) -> Requirement:
    """The subscription's filter policy is exactly `policy` (compared as JSON, not as text)."""
    return require("filter policy", policy, lambda s: json.loads(s["FilterPolicy"]) if s.get("FilterPolicy") else None)
