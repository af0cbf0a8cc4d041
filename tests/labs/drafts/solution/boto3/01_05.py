import json

from botocore.exceptions import ClientError


async def run(session, context, logger):
    try:
        sqs = session.client("sqs")
        dlq = sqs.create_queue(QueueName="drafts-dlq")["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        redrive = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 3})
        queue = sqs.create_queue(QueueName="drafts-jobs", Attributes={"VisibilityTimeout": "60", "RedrivePolicy": redrive})["QueueUrl"]
        return {"success": True, "resources": [
            {"name": "01_05_queue", "type": "AWS::SQS::Queue", "id": queue},
            {"name": "01_05_dlq", "type": "AWS::SQS::Queue", "id": dlq},
        ]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
