"""Step 03.01: the mistakes learners make with the topic, the queues and the subscription."""

import json

from harness.authoring.scenarios import mistake


def _arn(sqs, url):
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def _build(aws, *, receives=5, raw="true", source="topic", principal="sns.amazonaws.com", dead_letter=True,
           subscribe_to=None, redrive_to=None):  # fmt: skip
    sns, sqs = aws.client("sns"), aws.client("sqs")
    topic = sns.create_topic(Name="edge-audit-events")["TopicArn"]
    attributes = {}
    if dead_letter:
        dlq = sqs.create_queue(QueueName="edge-audit-events-dlq")
        redrive = {"deadLetterTargetArn": redrive_to or _arn(sqs, dlq["QueueUrl"]), "maxReceiveCount": receives}
        attributes["RedrivePolicy"] = json.dumps(redrive)
    queue = sqs.create_queue(QueueName="edge-audit-events", Attributes=attributes)["QueueUrl"]
    queue_arn = _arn(sqs, queue)
    send = {"Effect": "Allow", "Principal": {"Service": principal}, "Action": "sqs:SendMessage", "Resource": queue_arn}
    if source == "topic":
        send["Condition"] = {"ArnEquals": {"aws:SourceArn": topic}}
    elif source:
        send["Condition"] = {"ArnEquals": {"aws:SourceArn": source}}
    sqs.set_queue_attributes(QueueUrl=queue, Attributes={"Policy": json.dumps({"Statement": [send]})})
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=subscribe_to or queue_arn,
                  Attributes={"RawMessageDelivery": raw}, ReturnSubscriptionArn=True)  # fmt: skip
    return topic, queue


@mistake(expect="pass")
def three_receives(aws, handles):
    _build(aws, receives=3)


@mistake(expect="pass", events="reversed")
def events_in_the_other_order(aws, handles):
    _build(aws)


@mistake(
    issue=r"SQS queue edge-audit-events: dead-letter queue should be .*edge-audit-events-dlq after from 1 to 5 "
    r"receives, but is .* after 10 receives"
)
def ten_receives(aws, handles):
    _build(aws, receives=10)


@mistake(issue=r"Subscription .*: raw message delivery should be enabled, but is disabled")
def no_raw_delivery(aws, handles):
    _build(aws, raw="false")


@mistake(issue=r"SQS queue edge-audit-events: .*(sns\.amazonaws\.com).*(source|other|from)")
def any_topic_may_send(aws, handles):
    _build(aws, source=None)


@mistake(
    issue=r"SQS queue edge-audit-events: its policy does not let sns\.amazonaws\.com sqs:SendMessage from "
    r"arn:aws:sns:[\w-]+:\d+:edge-audit-events: .*Condition \(ArnEquals aws:SourceArn\)"
)
def the_policy_names_another_topic(aws, handles):
    account = aws.client("sts").get_caller_identity()["Account"]
    _build(aws, source=f"arn:aws:sns:{aws.region_name}:{account}:edge-audit-other")


@mistake(expect="pass")
def the_dead_letter_queue_made_first_under_another_name(aws, handles):
    """Whichever second queue the redrive names is the dead-letter queue; one made and left unused beside is not."""
    sqs = aws.client("sqs")
    _build(aws, redrive_to=_arn(sqs, sqs.create_queue(QueueName="edge-audit-failed")["QueueUrl"]))


@mistake(
    issue=r"SNS topic edge-audit-events: subscriptions should be sqs .*:edge-audit-events, "
    r"but is sqs .*:edge-audit-elsewhere"
)
def subscribed_another_queue(aws, handles):
    sqs = aws.client("sqs")
    _build(aws, subscribe_to=_arn(sqs, sqs.create_queue(QueueName="edge-audit-elsewhere")["QueueUrl"]))
