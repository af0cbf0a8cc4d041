"""Outsider: step 03.02 (the 5-minute schedule on the default bus, targeting the topic; the topic's policy)."""

import json

from harness.authoring.scenarios import mistake

from ._lib import all_of

RULE = "site-every-5-minutes"


def _rule(aws, handles, *, name=RULE, schedule="rate(5 minutes)", state="ENABLED", target=None):
    events = aws.client("events")
    arn = events.put_rule(Name=name, ScheduleExpression=schedule, State=state)["RuleArn"]
    events.put_targets(Rule=name, Targets=[{"Id": "topic", "Arn": target or handles["03_01_topic"]}])
    return arn


def _allow_events(aws, handles, source=None, *, action="sns:Publish", principal="events.amazonaws.com"):
    """Adds a statement for EventBridge to the topic's policy (keeping the statements it has)."""
    sns = aws.client("sns")
    topic = handles["03_01_topic"]
    policy = json.loads(sns.get_topic_attributes(TopicArn=topic)["Attributes"].get("Policy") or "{}")
    policy.setdefault("Version", "2012-10-17")
    statement = {
        "Sid": "AllowEventBridge",
        "Effect": "Allow",
        "Principal": {"Service": principal},
        "Action": action,
        "Resource": topic,
    }
    if source:
        statement["Condition"] = {"ArnEquals": {"aws:SourceArn": source}}
    policy["Statement"] = [*policy.get("Statement", []), statement]
    sns.set_topic_attributes(TopicArn=topic, AttributeName="Policy", AttributeValue=json.dumps(policy))


@mistake(expect="pass")
def right_rate_from_the_rule(aws, handles):
    """Right: rate(5 minutes), enabled, on the default bus, targeting the topic; Publish from the rule's ARN."""
    _allow_events(aws, handles, _rule(aws, handles))


@mistake(expect="pass")
def equivalent_cron_from_any_source(aws, handles):
    """Equivalent: cron(0/5 * * * ? *), and events.amazonaws.com may publish from any source."""
    _rule(aws, handles, schedule="cron(0/5 * * * ? *)")
    _allow_events(aws, handles)


@mistake(expect="pass")
def right_beside_an_older_disabled_hourly_rule(aws, handles):
    """Decoy first: a disabled rule site-hourly (rate(1 hour)) also on the topic, then the right rule with
    cron(*/5 * * * ? *). Must pass, resolving site-every-5-minutes."""
    _rule(aws, handles, name="site-hourly", schedule="rate(1 hour)", state="DISABLED")
    _allow_events(aws, handles, _rule(aws, handles, schedule="cron(*/5 * * * ? *)"))


@mistake(issue=all_of("(rule|site-every-5-minutes)", "(schedule|rate|5 minutes|fires|cron)"))
def every_five_hours(aws, handles):
    """Cause: the rule runs on rate(5 hours), not every 5 minutes."""
    _allow_events(aws, handles, _rule(aws, handles, schedule="rate(5 hours)"))


@mistake(issue=all_of("(rule|site-every-5-minutes)", "(schedule|rate|5 minutes|fires|cron)"))
def cron_at_minute_five(aws, handles):
    """Cause: cron(5 * * * ? *) fires at minute 5 of every hour, not every 5 minutes."""
    _allow_events(aws, handles, _rule(aws, handles, schedule="cron(5 * * * ? *)"))


@mistake(issue=all_of("(rule|site-every-5-minutes)", "(enabled|disabled)"))
def rule_disabled(aws, handles):
    """Cause: the rule site-every-5-minutes is DISABLED."""
    _allow_events(aws, handles, _rule(aws, handles, state="DISABLED"))


@mistake(issue=all_of("(rule|site-every-5-minutes)", "(target|topic)"))
def targets_a_scratch_topic(aws, handles):
    """Mis-wired: the rule targets a scratch topic site-events-test, not the lab's topic."""
    scratch = aws.client("sns").create_topic(Name="site-events-test")["TopicArn"]
    _allow_events(aws, handles, _rule(aws, handles, target=scratch))


@mistake(issue=all_of("(topic|policy)", "(events\\.amazonaws\\.com|EventBridge|Publish)"))
def topic_policy_not_changed(aws, handles):
    """Cause: the topic's policy was never changed: events.amazonaws.com may not sns:Publish to it."""
    _rule(aws, handles)


@mistake(issue=all_of("(topic|policy)", "(events\\.amazonaws\\.com|EventBridge|Publish)", "(rule|source|from)"))
def topic_policy_from_the_older_rule(aws, handles):
    """Mis-wired: Publish is allowed only from the learner's older rule site-hourly's ARN, not from this rule."""
    old = _rule(aws, handles, name="site-hourly", schedule="rate(1 hour)", state="DISABLED")
    _rule(aws, handles)
    _allow_events(aws, handles, old)


@mistake(issue=all_of("(topic|policy)", "(events\\.amazonaws\\.com|EventBridge|Publish)"))
def topic_policy_for_the_wrong_service(aws, handles):
    """Cause: the statement names scheduler.amazonaws.com (EventBridge Scheduler), not events.amazonaws.com."""
    _allow_events(aws, handles, _rule(aws, handles), principal="scheduler.amazonaws.com")


@mistake(expect="pass")
def equivalent_two_targets_with_constant_input(aws, handles):
    """Equivalent: the rule also targets a scratch queue, and the topic target gets a constant JSON input."""
    events = aws.client("events")
    arn = events.put_rule(Name=RULE, ScheduleExpression="rate(5 minutes)", State="ENABLED")["RuleArn"]
    sqs = aws.client("sqs")
    url = sqs.create_queue(QueueName="schedule-debug")["QueueUrl"]
    queue = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events.put_targets(
        Rule=RULE,
        Targets=[
            {"Id": "debug", "Arn": queue},
            {"Id": "topic", "Arn": handles["03_01_topic"], "Input": json.dumps({"kind": "tick"})},
        ],
    )
    _allow_events(aws, handles, arn)


@mistake(expect="pass")
def equivalent_topic_policy_replaced_whole(aws, handles):
    """Equivalent: the topic's policy replaced by one statement for EventBridge (the default owner statement gone)."""
    arn = _rule(aws, handles)
    topic = handles["03_01_topic"]
    statement = {
        "Effect": "Allow",
        "Principal": {"Service": "events.amazonaws.com"},
        "Action": "sns:Publish",
        "Resource": topic,
        "Condition": {"ArnEquals": {"aws:SourceArn": arn}},
    }
    policy = json.dumps({"Version": "2012-10-17", "Statement": [statement]})
    aws.client("sns").set_topic_attributes(TopicArn=topic, AttributeName="Policy", AttributeValue=policy)


@mistake(issue=all_of("(rule|site-every-5-minutes)", "(schedule|rate|5 minutes|pattern)"))
def event_pattern_for_scheduled_events(aws, handles):
    """Cause: the rule matches the pattern {"source": ["aws.events"], "detail-type": ["Scheduled Event"]} instead
    of running on a schedule (it never fires by itself)."""
    events = aws.client("events")
    pattern = json.dumps({"source": ["aws.events"], "detail-type": ["Scheduled Event"]})
    arn = events.put_rule(Name=RULE, EventPattern=pattern, State="ENABLED")["RuleArn"]
    events.put_targets(Rule=RULE, Targets=[{"Id": "topic", "Arn": handles["03_01_topic"]}])
    _allow_events(aws, handles, arn)
