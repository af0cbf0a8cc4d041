"""Outsider: step 03.01 (the topic, the subscribed queue, its dead-letter queue and its policy)."""

import json

from harness.authoring.scenarios import mistake

from ._lib import all_of, doc

# Ambiguous to me: "lets the topic, and only that topic, send messages": a queue policy that also keeps the
# console's default owner statement (the account's root may sqs:* the queue) is left out: whether the owner
# account is "someone else" is not said. Likewise Principal "*" with aws:SourceArn = the topic (older AWS docs'
# form) is left out.


def _queue(aws, name, **attributes):
    sqs = aws.client("sqs")
    url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return url, arn


def _send_from(queue_arn, topic_arn, *, operator="ArnEquals", action="sqs:SendMessage", key="aws:SourceArn"):
    statement = {
        "Sid": "FromTopic",
        "Effect": "Allow",
        "Principal": {"Service": "sns.amazonaws.com"},
        "Action": action,
        "Resource": queue_arn,
    }
    if topic_arn:
        statement["Condition"] = {operator: {key: topic_arn}}
    return statement


def build(
    aws,
    *,
    receives=3,
    raw=True,
    dead_letter=True,
    source=None,
    statement=None,
    subscribe_dead_letter=False,
    names=("site-events", "site-events-queue", "site-events-dlq"),
):
    """The whole step, with one thing changed by the caller; returns (topic ARN, queue URL, queue ARN)."""
    topic_name, queue_name, dlq_name = names
    topic = aws.client("sns").create_topic(Name=topic_name)["TopicArn"]
    _, dlq_arn = _queue(aws, dlq_name)
    attributes = {}
    if dead_letter:
        attributes["RedrivePolicy"] = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": str(receives)})
    url, arn = _queue(aws, queue_name, **attributes)
    policy = statement(arn, topic) if statement else _send_from(arn, source or topic)
    aws.client("sqs").set_queue_attributes(QueueUrl=url, Attributes={"Policy": doc(policy)})
    endpoint = dlq_arn if subscribe_dead_letter else arn
    aws.client("sns").subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=endpoint,
        Attributes={"RawMessageDelivery": "true" if raw else "false"},
    )
    return topic, url, arn


@mistake(expect="pass")
def right_three_receives(aws, handles):
    """Right: topic, queue with a redrive to the DLQ after 3 receives, raw delivery, ArnEquals aws:SourceArn."""
    build(aws)


@mistake(expect="pass")
def equivalent_five_receives_raw_set_after(aws, handles):
    """Equivalent: maxReceiveCount 5 (the bound, as a number), StringEquals on the source, raw delivery switched on
    after subscribing (SetSubscriptionAttributes)."""
    sns = aws.client("sns")
    topic = sns.create_topic(Name="site-events")["TopicArn"]
    _, dlq_arn = _queue(aws, "site-events-dlq")
    redrive = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 5})
    url, arn = _queue(aws, "site-events-queue", RedrivePolicy=redrive)
    policy = doc(_send_from(arn, topic, operator="StringEquals"))
    aws.client("sqs").set_queue_attributes(QueueUrl=url, Attributes={"Policy": policy})
    subscription = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, ReturnSubscriptionArn=True)
    sns.set_subscription_attributes(
        SubscriptionArn=subscription["SubscriptionArn"], AttributeName="RawMessageDelivery", AttributeValue="true"
    )


@mistake(expect="pass")
def right_beside_an_older_queue_without_dlq(aws, handles):
    """Decoy first: an older queue site-events-old (no DLQ, no policy, not subscribed), then the right build.
    Must pass, resolving site-events-queue and site-events-dlq."""
    _queue(aws, "site-events-old")
    build(aws, receives=1)


@mistake(issue=all_of("(subscription|site-events)", "raw"))
def raw_delivery_off(aws, handles):
    """Cause: the subscription delivers SNS's JSON envelope (raw message delivery off)."""
    build(aws, raw=False)


@mistake(issue=all_of("(site-events-queue|queue)", "(receive|maxReceiveCount|\\b5\\b|at most)"))
def ten_receives(aws, handles):
    """Cause: site-events-queue's redrive policy moves a message after 10 receives, not at most 5."""
    build(aws, receives=10)


@mistake(issue=all_of("(site-events-queue|queue)", "(dead.letter|DLQ|redrive)"))
def no_redrive(aws, handles):
    """Cause: the DLQ exists but site-events-queue has no redrive policy naming it."""
    build(aws, dead_letter=False)


@mistake(
    issue=all_of(
        "(site-events-queue|queue)",
        "(also lets sns\\S* from arn:aws:sns:|(other|another|any|every)\\s+(source|topic|account)|SourceArn)",
    )
)
def policy_without_a_source(aws, handles):
    """Cause: sns.amazonaws.com may send with no condition: any topic (of any account) could."""
    build(aws, statement=lambda queue, topic: _send_from(queue, None))


@mistake(issue=all_of("^SQS queue site-events-queue", "polic", "(SendMessage|SourceArn)"))
def policy_names_the_older_topic(aws, handles):
    """Mis-wired: aws:SourceArn names the learner's earlier topic site-events-old, not site-events."""
    old = aws.client("sns").create_topic(Name="site-events-old")["TopicArn"]
    build(aws, source=old)


@mistake(issue=all_of("(site-events-queue|queue)", "SendMessage"))
def policy_grants_receive_not_send(aws, handles):
    """Cause: the statement allows sqs:ReceiveMessage (picked from the action list), not sqs:SendMessage."""
    build(aws, statement=lambda queue, topic: _send_from(queue, topic, action="sqs:ReceiveMessage"))


@mistake(issue=all_of("(subscri|site-events-queue|dead.letter|endpoint)", "(queue|dlq|dead.letter|subscri)"))
def dead_letter_queue_subscribed(aws, handles):
    """Mis-wired: the topic's subscription delivers to site-events-dlq, not to site-events-queue (wrong queue
    picked in the console's subscription form)."""
    build(aws, subscribe_dead_letter=True)


@mistake(
    issue=all_of(
        "(site-events-queue|queue)",
        "(also lets sns\\S* from arn:aws:sns:|(other|another|any|every)\\s+(source|topic)|SourceArn|SourceAccount)",
    )
)
def policy_scoped_to_the_account_only(aws, handles):
    """Cause: the condition is aws:SourceAccount = the account: every topic of the account may send."""
    account_id = aws.client("sts").get_caller_identity()["Account"]
    build(
        aws,
        statement=lambda queue, topic: _send_from(queue, account_id, operator="StringEquals", key="aws:SourceAccount"),
    )


@mistake(expect="pass")
def equivalent_dead_letter_queue_named_freely_beside_an_unused_one(aws, handles):
    """Equivalent: the DLQ is called failed-site-events; a queue site-events-dlq the learner made first stays unused.
    Must pass, resolving failed-site-events as the dead-letter queue."""
    _queue(aws, "site-events-dlq")
    build(aws, names=("site-events", "site-events-queue", "failed-site-events"))
