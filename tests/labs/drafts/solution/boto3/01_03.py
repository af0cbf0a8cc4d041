import json

from botocore.exceptions import ClientError


async def run(session, context, logger):
    table = next(h["id"] for h in context["resolved"] if h["name"] == "01_02_table")
    trust = {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
    try:
        iam = session.client("iam")
        iam.create_role(RoleName="drafts-role", AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [trust]}))
        arn = session.client("dynamodb").describe_table(TableName=table)["Table"]["TableArn"]
        allow = {"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": arn}
        iam.put_role_policy(RoleName="drafts-role", PolicyName="read", PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [allow]}))
        return {"success": True, "resources": [{"name": "01_03_role", "type": "AWS::IAM::Role", "id": "drafts-role"}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
