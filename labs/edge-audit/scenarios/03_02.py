"""Step 03.02: the mistakes learners make with the schedule and the topic's policy."""

import json

from harness.authoring.scenarios import mistake


def _rule(aws, handles, *, name="edge-audit-tick", expression="rate(5 minutes)", state="ENABLED", target=True):
    events = aws.client("events")
    arn = events.put_rule(Name=name, ScheduleExpression=expression, State=state)["RuleArn"]
    if target:
        events.put_targets(
            Rule=name, Targets=[{"Id": "topic", "Arn": handles["03_01_topic"] if target is True else target}]
        )
    return arn


def _topic_policy(aws, handles, *, principal="events.amazonaws.com", source=None, action="sns:Publish"):
    statement = {
        "Effect": "Allow",
        "Principal": {"Service": principal},
        "Action": action,
        "Resource": handles["03_01_topic"],
    }
    if source:
        statement["Condition"] = {"ArnEquals": {"aws:SourceArn": source}}
    aws.client("sns").set_topic_attributes(
        TopicArn=handles["03_01_topic"], AttributeName="Policy",
        AttributeValue=json.dumps({"Version": "2012-10-17", "Statement": [statement]}),
    )  # fmt: skip


@mistake(expect="pass")
def cron_every_five_minutes_from_any_source(aws, handles):
    _rule(aws, handles, expression="cron(0/5 * * * ? *)")
    _topic_policy(aws, handles)


@mistake(expect="pass")
def cron_star_slash_five_and_an_older_disabled_rule(aws, handles):
    _rule(aws, handles, name="edge-audit-old", expression="rate(10 minutes)", state="DISABLED")
    arn = _rule(aws, handles, expression="cron(*/5 * * * ? *)")
    _topic_policy(aws, handles, source=arn)


@mistake(issue=r"EventBridge rule edge-audit-tick: schedule should be rate\(5 minutes\), but is rate\(10 minutes\)")
def every_ten_minutes(aws, handles):
    _topic_policy(aws, handles, source=_rule(aws, handles, expression="rate(10 minutes)"))


@mistake(
    issue=r"EventBridge rule edge-audit-tick: schedule should be rate\(5 minutes\), but is cron\(5 \* \* \* \? \*\)"
)
def cron_at_minute_five_of_each_hour(aws, handles):
    _topic_policy(aws, handles, source=_rule(aws, handles, expression="cron(5 * * * ? *)"))


@mistake(issue=r"EventBridge rule edge-audit-tick: state should be ENABLED, but is DISABLED")
def a_disabled_rule(aws, handles):
    _topic_policy(aws, handles, source=_rule(aws, handles, state="DISABLED"))


@mistake(issue=r"EventBridge rule edge-audit-tick: targets should be .*edge-audit-events")
def no_target(aws, handles):
    _topic_policy(aws, handles, source=_rule(aws, handles, target=False))


@mistake(issue=r"SNS topic edge-audit-events: .*events\.amazonaws\.com")
def the_topic_policy_left_as_it_was(aws, handles):
    _rule(aws, handles)


@mistake(issue=r"SNS topic edge-audit-events: .*events\.amazonaws\.com")
def the_topic_policy_lets_sns_publish_instead(aws, handles):
    _topic_policy(aws, handles, principal="sns.amazonaws.com", source=_rule(aws, handles))


@mistake(
    issue=r"SNS topic edge-audit-events: its policy does not let events\.amazonaws\.com sns:Publish from "
    r"arn:aws:events:.*rule/edge-audit-tick: .*Condition \(ArnEquals aws:SourceArn\)"
)
def the_topic_policy_names_another_rule(aws, handles):
    other = _rule(aws, handles, name="edge-audit-other", target=False)
    _rule(aws, handles)
    _topic_policy(aws, handles, source=other)
