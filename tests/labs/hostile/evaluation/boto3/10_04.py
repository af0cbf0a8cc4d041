"""Reads another account's topic by its ARN (issue 31)."""


async def run(session, context, logger):
    attributes = session.client("sns").get_topic_attributes(TopicArn=context["events"][0]["id"])["Attributes"]
    return {
        "validated": [{"name": "topic_04", "type": "AWS::S3::Bucket", "id": "topic", "status": "not_found"}],
        "success": False,
        "message": str(attributes)[:1000],
    }
