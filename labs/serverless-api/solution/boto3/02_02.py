"""Step 02.02: the function's log group, events kept 14 days, and the role allowed to write to it."""

import json

from botocore.exceptions import ClientError


async def run(session, context, logger):
    handles = {h["name"]: h["id"] for h in context["resolved"]}
    try:
        function = session.client("lambda").get_function(FunctionName=handles["02_01_function"])["Configuration"]
        group = f"/aws/lambda/{function['FunctionName']}"
        logs = session.client("logs")
        logs.create_log_group(logGroupName=group)
        logs.put_retention_policy(logGroupName=group, retentionInDays=14)
        _, partition, _, region, account = function["FunctionArn"].split(":")[:5]
        allow = {
            "Effect": "Allow",
            "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
            "Resource": f"arn:{partition}:logs:{region}:{account}:log-group:{group}:*",
        }
        document = json.dumps({"Version": "2012-10-17", "Statement": [allow]})
        session.client("iam").put_role_policy(
            RoleName=handles["01_02_role"], PolicyName="logs", PolicyDocument=document
        )
        return {"success": True, "resources": [{"name": "02_02_log_group", "type": "AWS::Logs::LogGroup", "id": group}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
