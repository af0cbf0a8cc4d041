"""Step 03.02: a rule every 5 minutes on the default bus targeting the topic, which lets the rule publish."""

import json

from botocore.exceptions import ClientError


async def run(session, context, logger):
    handles = {h["name"]: h["id"] for h in context["resolved"]}
    try:
        topic = handles["03_01_topic"]
        events = session.client("events")
        rule = events.put_rule(Name="edge-audit-tick", ScheduleExpression="rate(5 minutes)", State="ENABLED")
        publish = {
            "Sid": "EventBridgePublishes",
            "Effect": "Allow",
            "Principal": {"Service": "events.amazonaws.com"},
            "Action": "sns:Publish",
            "Resource": topic,
            "Condition": {"ArnEquals": {"aws:SourceArn": rule["RuleArn"]}},
        }
        session.client("sns").set_topic_attributes(
            TopicArn=topic,
            AttributeName="Policy",
            AttributeValue=json.dumps({"Version": "2012-10-17", "Statement": [publish]}),
        )
        events.put_targets(Rule="edge-audit-tick", Targets=[{"Id": "topic", "Arn": topic}])
        return {
            "success": True,
            "resources": [{"name": "03_02_rule", "type": "AWS::Events::Rule", "id": "edge-audit-tick"}],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
