"""Step 03.01: a topic, a queue subscribed with raw delivery that only the topic may send to, and its dead-letter
queue after 5 receives."""

import json

from botocore.exceptions import ClientError


async def run(session, context, logger):
    try:
        sns, sqs = session.client("sns"), session.client("sqs")
        topic = sns.create_topic(Name="edge-audit-events")["TopicArn"]
        dead_letter = sqs.create_queue(QueueName="edge-audit-events-dlq")["QueueUrl"]
        dead_letter_arn = sqs.get_queue_attributes(QueueUrl=dead_letter, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        queue = sqs.create_queue(
            QueueName="edge-audit-events",
            Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dead_letter_arn, "maxReceiveCount": 5})},
        )["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        send = {
            "Effect": "Allow",
            "Principal": {"Service": "sns.amazonaws.com"},
            "Action": "sqs:SendMessage",
            "Resource": queue_arn,
            "Condition": {"ArnEquals": {"aws:SourceArn": topic}},
        }
        sqs.set_queue_attributes(
            QueueUrl=queue, Attributes={"Policy": json.dumps({"Version": "2012-10-17", "Statement": [send]})}
        )
        subscription = sns.subscribe(
            TopicArn=topic,
            Protocol="sqs",
            Endpoint=queue_arn,
            Attributes={"RawMessageDelivery": "true"},
            ReturnSubscriptionArn=True,
        )["SubscriptionArn"]
        return {
            "success": True,
            "resources": [
                {"name": "03_01_topic", "type": "AWS::SNS::Topic", "id": topic},
                {"name": "03_01_queue", "type": "AWS::SQS::Queue", "id": queue},
                {"name": "03_01_dead_letter_queue", "type": "AWS::SQS::Queue", "id": dead_letter},
                {"name": "03_01_subscription", "type": "AWS::SNS::Subscription", "id": subscription},
            ],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
