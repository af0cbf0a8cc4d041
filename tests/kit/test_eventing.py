"""An SNS subscription's attributes, an EventBridge bus and a rule's target settings, on moto."""

from __future__ import annotations

import json

from harness.kit import events, sns
from harness.kit.bounds import at_most
from tests.kit.conftest import described, miss, passes, unique
from tests.kit.test_messaging import queue


def test_a_subscription_with_raw_delivery_a_filter_and_a_redrive(aws_session) -> None:
    client = aws_session.client("sns")
    topic = client.create_topic(Name=unique("orders"))["TopicArn"]
    url, arn = queue(aws_session)
    dlq_url, dlq_arn = queue(aws_session)
    _, other_arn = queue(aws_session)
    subscription = client.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={
            "RawMessageDelivery": "true",
            "FilterPolicy": json.dumps({"kind": ["order", "refund"]}),
            "FilterPolicyScope": "MessageBody",
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn}),
        },
        ReturnSubscriptionArn=True,
    )["SubscriptionArn"]
    found = described(sns.SUBSCRIPTION, aws_session, subscription)
    for requirement in (
        sns.raw_delivery(),
        sns.filter_policy({"kind": ["refund", "order"]}),
        sns.filter_scope("MessageBody"),
        sns.redrives_to(dlq_url),
        sns.redrives_to(dlq_arn),
        sns.endpoint(url),
        sns.on_topic(topic),
        sns.protocol("SQS"),
    ):
        assert passes(requirement, found), requirement.check
    assert not passes(sns.filter_scope(), found)
    assert miss(sns.redrives_to(other_arn), sns.SUBSCRIPTION, subscription, found) == (
        f"Subscription {subscription}: dead-letter queue should be {other_arn}, but is {dlq_arn}."
    )
    plain = client.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=other_arn, ReturnSubscriptionArn=True)
    bare = described(sns.SUBSCRIPTION, aws_session, plain["SubscriptionArn"])
    assert not passes(sns.raw_delivery(), bare) and not passes(sns.redrives_to(dlq_arn), bare)


def test_an_event_bus_and_a_rule_on_it(aws_session) -> None:
    client = aws_session.client("events")
    bus_name = unique("orders-bus")
    bus_arn = client.create_event_bus(Name=bus_name)["EventBusArn"]
    bus = described(events.EVENT_BUS, aws_session, bus_arn)
    assert bus["Name"] == bus_name and described(events.EVENT_BUS, aws_session, bus_name)["Arn"] == bus_arn
    rule_name = unique("on-order")
    client.put_rule(Name=rule_name, EventBusName=bus_name, EventPattern=json.dumps({"source": ["shop"]}))
    rule = described(events.RULE, aws_session, f"arn:aws:events:us-east-1:123456789012:rule/{bus_name}/{rule_name}")
    for given in (bus, bus_name, bus_arn):
        assert passes(events.on_bus(given), rule)
    assert not passes(events.on_bus("default"), rule)


def test_a_targets_role_dead_letter_queue_and_retries(aws_session) -> None:
    client = aws_session.client("events")
    topic = aws_session.client("sns").create_topic(Name=unique("alerts"))["TopicArn"]
    _, dlq_arn = queue(aws_session)
    role = aws_session.client("iam").create_role(RoleName=unique("events-role"), AssumeRolePolicyDocument="{}")["Role"]
    name = unique("nightly")
    client.put_rule(Name=name, ScheduleExpression="cron(0 3 * * ? *)")
    client.put_targets(Rule=name, Targets=[{
        "Id": "alerts", "Arn": topic, "RoleArn": role["Arn"], "DeadLetterConfig": {"Arn": dlq_arn},
        "RetryPolicy": {"MaximumRetryAttempts": 3, "MaximumEventAgeInSeconds": 3600},
    }])  # fmt: skip
    rule = described(events.RULE, aws_session, name)
    assert passes(events.target_settings(topic, role=role["RoleName"], dead_letter_queue=dlq_arn), rule)
    assert passes(events.target_settings(topic, max_attempts=at_most(5)), rule)
    assert not passes(events.target_settings(topic, max_attempts=5), rule)
    assert passes(events.schedule("rate(1 day)"), rule)
    assert miss(events.target_settings(topic, max_attempts=at_most(2)), events.RULE, name, rule) == (
        f"EventBridge rule {name}: its target {topic} should have at most 2 retries; it has role {role['Arn']}, "
        f"dead-letter queue {dlq_arn}, 3 retries."
    )
    assert miss(events.target_settings(dlq_arn, role=role["Arn"]), events.RULE, name, rule) == (
        f"EventBridge rule {name}: it has no target {dlq_arn}."
    )
