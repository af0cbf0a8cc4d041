"""Starts IAM's report jobs (issue 31): each leaves a report behind whether or not it existed, a bit the next
evaluation of the account reads. The first refusal ends the evaluation as read_only."""


async def run(session, context, logger):
    iam = session.client("iam")
    iam.generate_credential_report()
    iam.generate_service_last_accessed_details(Arn=context["events"][0]["id"])
    return {
        "validated": [{"name": "jobs_06", "type": "AWS::S3::Bucket", "id": "jobs", "status": "not_found"}],
        "success": False,
        "message": "the report jobs ran",
    }
