"""Helpers the outsider's serverless scenarios share (plain boto3)."""

import io
import json
import zipfile

TRUST = {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}


def doc(*statements):
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def all_of(*words):
    """A pattern the issue matches only when it names every word (any order, any case)."""
    return "(?is)^" + "".join(f"(?=.*{w})" for w in words)


def code():
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr(
            zipfile.ZipInfo("app.py", date_time=(2026, 1, 1, 0, 0, 0)), "def handler(e, c):\n    return {}\n"
        )
    return archive.getvalue()


def table_arn(aws, name):
    return aws.client("dynamodb").describe_table(TableName=name)["Table"]["TableArn"]


def scratch_table(aws, name="items-dev"):
    aws.client("dynamodb").create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    return name


def role(aws, name, *statements, trust=TRUST):
    iam = aws.client("iam")
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=doc(trust))["Role"]["Arn"]
    if statements:
        iam.put_role_policy(RoleName=name, PolicyName="app", PolicyDocument=doc(*statements))
    return arn


def function(aws, name, role_arn, table, *, runtime="python3.12", handler="app.handler"):
    return aws.client("lambda").create_function(
        FunctionName=name,
        Runtime=runtime,
        Handler=handler,
        Role=role_arn,
        Code={"ZipFile": code()},
        Environment={"Variables": {"TABLE_NAME": table}},
    )["FunctionArn"]
