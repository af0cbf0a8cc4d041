import json

from botocore.exceptions import ClientError


async def run(session, context, logger):
    handles = {h["name"]: h["id"] for h in context["resolved"]}
    try:
        sqs = session.client("sqs")
        dlq = sqs.create_queue(QueueName="orders-dlq")["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        redrive = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 5})
        sqs.set_queue_attributes(QueueUrl=handles["01_01_queue"], Attributes={"RedrivePolicy": redrive})
        return {"success": True, "resources": [{"name": "01_02_dlq", "type": "AWS::SQS::Queue", "id": dlq}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
