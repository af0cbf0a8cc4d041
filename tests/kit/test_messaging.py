"""SQS, SNS and EventBridge kinds on moto: queue attributes, redrive and policy; topics, subscriptions; rules."""

from __future__ import annotations

import json

from harness.kit import events, sns, sqs
from harness.kit.kinds import short_name
from tests.kit.conftest import described, miss, passes, unique


def queue(aws_session, **attributes: str) -> tuple[str, str]:
    client = aws_session.client("sqs")
    url = client.create_queue(QueueName=unique("q"), Attributes=attributes)["QueueUrl"]
    return url, client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def test_queue_attributes(aws_session) -> None:
    url, _ = queue(aws_session, VisibilityTimeout="60", MessageRetentionPeriod="86400", SqsManagedSseEnabled="true")
    found = described(sqs.QUEUE, aws_session, url)
    for requirement in (sqs.visibility_timeout(60), sqs.retention(86400), sqs.encrypted(), sqs.fifo(False)):
        assert passes(requirement, found), requirement.check
    assert miss(sqs.visibility_timeout(30), sqs.QUEUE, url, found) == (
        f"SQS queue {short_name(url)}: visibility timeout (s) should be 30, but is 60."
    )


def test_dead_letter_queue(aws_session) -> None:
    _, dlq_arn = queue(aws_session)
    url, _ = queue(aws_session, RedrivePolicy=json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 3}))
    found = described(sqs.QUEUE, aws_session, url)
    assert passes(sqs.dead_letter_queue(dlq_arn, max_receives=3), found)
    assert miss(sqs.dead_letter_queue(dlq_arn, max_receives=5), sqs.QUEUE, url, found) == (
        f"SQS queue {short_name(url)}: dead-letter queue should be {dlq_arn} after 5 receives, "
        f"but is {dlq_arn} after 3 receives."
    )
    plain, _ = queue(aws_session)
    assert "but is none" in miss(
        sqs.dead_letter_queue(dlq_arn), sqs.QUEUE, plain, described(sqs.QUEUE, aws_session, plain)
    )


def test_queue_policy_admits_the_topic(aws_session) -> None:
    topic = aws_session.client("sns").create_topic(Name=unique("t"))["TopicArn"]
    url, arn = queue(aws_session)
    statement = {
        "Effect": "Allow",
        "Principal": {"Service": "sns.amazonaws.com"},
        "Action": "sqs:SendMessage",
        "Resource": arn,
        "Condition": {"ArnEquals": {"aws:SourceArn": topic}},
    }
    aws_session.client("sqs").set_queue_attributes(
        QueueUrl=url, Attributes={"Policy": json.dumps({"Version": "2012-10-17", "Statement": [statement]})}
    )
    found = described(sqs.QUEUE, aws_session, url)
    assert passes(sqs.accepts_from("sns.amazonaws.com", topic), found)
    assert miss(sqs.accepts_from("sns.amazonaws.com", topic + "-other"), sqs.QUEUE, url, found) == (
        f"SQS queue {short_name(url)}: its policy does not let sns.amazonaws.com sqs:SendMessage "
        f"from {topic}-other: statement 1 "
        "allows sqs:SendMessage but has a Condition (ArnEquals aws:SourceArn) the request does not meet."
    )


def test_topic_subscriptions(aws_session) -> None:
    client = aws_session.client("sns")
    topic = client.create_topic(Name=unique("t"), Attributes={"KmsMasterKeyId": "alias/aws/sns"})["TopicArn"]
    _, queue_arn = queue(aws_session)
    subscription = client.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn, ReturnSubscriptionArn=True)
    found = described(sns.TOPIC, aws_session, topic)
    assert passes(sns.subscribed("sqs", queue_arn), found)
    assert passes(sns.encrypted(), found)
    assert miss(sns.subscribed("email", "ops@example.com"), sns.TOPIC, topic, found) == (
        f"SNS topic {short_name(topic)}: subscriptions should be email ops@example.com, but is sqs {queue_arn}."
    )
    arn = subscription["SubscriptionArn"]
    described_subscription = described(sns.SUBSCRIPTION, aws_session, arn)
    for requirement in (sns.protocol("sqs"), sns.endpoint(queue_arn), sns.on_topic(topic), sns.raw_delivery(False)):
        assert passes(requirement, described_subscription), requirement.check


def test_subscription_filter_policy(aws_session) -> None:
    client = aws_session.client("sns")
    topic = client.create_topic(Name=unique("t"))["TopicArn"]
    _, queue_arn = queue(aws_session)
    arn = client.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=queue_arn,
        Attributes={"FilterPolicy": json.dumps({"kind": ["order"]})},
        ReturnSubscriptionArn=True,
    )["SubscriptionArn"]
    found = described(sns.SUBSCRIPTION, aws_session, arn)
    assert passes(sns.filter_policy({"kind": ["order"]}), found)
    assert miss(sns.filter_policy({"kind": ["refund"]}), sns.SUBSCRIPTION, arn, found).endswith(
        "filter policy should be {'kind': ['refund']}, but is {'kind': ['order']}."
    )


def test_topic_policy(aws_session) -> None:
    client = aws_session.client("sns")
    topic = client.create_topic(Name=unique("t"))["TopicArn"]
    found = described(sns.TOPIC, aws_session, topic)
    assert miss(sns.accepts_from("events.amazonaws.com"), sns.TOPIC, topic, found) == (
        f"SNS topic {short_name(topic)}: its policy does not let events.amazonaws.com sns:Publish: statement "
        '"__default_statement_ID" allows sns:Publish but has a Condition (StringEquals AWS:SourceOwner) the request '
        "does not meet."
    )
    statement = {
        "Effect": "Allow",
        "Principal": {"Service": "events.amazonaws.com"},
        "Action": "sns:Publish",
        "Resource": topic,
    }
    client.set_topic_attributes(
        TopicArn=topic,
        AttributeName="Policy",
        AttributeValue=json.dumps({"Version": "2012-10-17", "Statement": [statement]}),
    )
    assert passes(sns.accepts_from("events.amazonaws.com"), described(sns.TOPIC, aws_session, topic))


def test_rule_schedule_and_targets(aws_session) -> None:
    client = aws_session.client("events")
    name = unique("nightly")
    arn = client.put_rule(Name=name, ScheduleExpression="rate(1 day)")["RuleArn"]
    topic = aws_session.client("sns").create_topic(Name=unique("t"))["TopicArn"]
    client.put_targets(Rule=name, Targets=[{"Id": "1", "Arn": topic}])
    for rule_id in (name, arn):
        rule = described(events.RULE, aws_session, rule_id)
        for requirement in (events.schedule("rate(1 day)"), events.enabled(), events.targets(topic)):
            assert passes(requirement, rule), requirement.check
    assert miss(events.schedule("rate(5 minutes)"), events.RULE, name, described(events.RULE, aws_session, name)) == (
        f"EventBridge rule {name}: schedule should be rate(5 minutes), but is rate(1 day)."
    )


def test_rule_event_pattern(aws_session) -> None:
    client = aws_session.client("events")
    name = unique("on-upload")
    pattern = {"source": ["aws.s3"], "detail-type": ["Object Created"]}
    client.put_rule(Name=name, EventPattern=json.dumps(pattern), State="DISABLED")
    rule = described(events.RULE, aws_session, name)
    assert passes(events.event_pattern({"detail-type": ["Object Created"], "source": ["aws.s3"]}), rule)
    assert miss(events.enabled(), events.RULE, name, rule) == (
        f"EventBridge rule {name}: state should be ENABLED, but is DISABLED."
    )


def test_queue_delay(aws_session) -> None:
    url, _ = queue(aws_session, DelaySeconds="5")
    found = described(sqs.QUEUE, aws_session, url)
    assert passes(sqs.delay(5), found)
    assert (
        miss(sqs.delay(0), sqs.QUEUE, url, found)
        == f"SQS queue {short_name(url)}: delivery delay (s) should be 0, but is 5."
    )
