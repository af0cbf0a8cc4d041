"""Step 01.02: a role only Lambda may assume, allowed exactly dynamodb:GetItem and PutItem on the table."""

import json

from botocore.exceptions import ClientError

ROLE = "items-api-role"


def _document(statement):
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


async def run(session, context, logger):
    table = next(h["id"] for h in context["resolved"] if h["name"] == "01_01_table")
    trust = {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
    try:
        iam = session.client("iam")
        iam.create_role(RoleName=ROLE, AssumeRolePolicyDocument=_document(trust))
        table_arn = session.client("dynamodb").describe_table(TableName=table)["Table"]["TableArn"]
        allow = {"Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:PutItem"], "Resource": table_arn}
        iam.put_role_policy(RoleName=ROLE, PolicyName="items-table", PolicyDocument=_document(allow))
        return {"success": True, "resources": [{"name": "01_02_role", "type": "AWS::IAM::Role", "id": ROLE}]}
    except ClientError as e:
        return {"error": str(e), "code": e.response["Error"]["Code"]}
