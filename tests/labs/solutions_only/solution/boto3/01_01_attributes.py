"""The same queue, its timeout set after it was made."""

from botocore.exceptions import ClientError


async def run(session, context, logger):
    try:
        sqs = session.client("sqs")
        url = sqs.create_queue(QueueName="orders")["QueueUrl"]
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "60"})
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        return {
            "success": True,
            "resources": [
                {"name": "01_01_queue", "type": "AWS::SQS::Queue", "id": url},
                {"name": "01_01_queue_arn", "type": "string", "id": arn},
            ],
        }
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
