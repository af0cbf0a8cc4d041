"""Step 01.02: the mistakes learners make with the function's role (solution/boto3/01_02.py solves it; the
mutants its evaluator rightly accepts are marked in solution/equivalent.yaml)."""

import json

from harness.authoring.scenarios import mistake

ROLE = "items-api-role"


def _document(statement):
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def _role(aws, handles, *, services=("lambda.amazonaws.com",), actions=("dynamodb:GetItem", "dynamodb:PutItem"),
          resource=None, managed=None):  # fmt: skip
    iam = aws.client("iam")
    principal = {"Service": services[0] if len(services) == 1 else list(services)}
    trust = {"Effect": "Allow", "Principal": principal, "Action": "sts:AssumeRole"}
    iam.create_role(RoleName=ROLE, AssumeRolePolicyDocument=_document(trust))
    if actions:
        table_arn = aws.client("dynamodb").describe_table(TableName=handles["01_01_table"])["Table"]["TableArn"]
        allow = {"Effect": "Allow", "Action": list(actions), "Resource": resource or table_arn}
        iam.put_role_policy(RoleName=ROLE, PolicyName="items-table", PolicyDocument=_document(allow))
    if managed:
        iam.attach_role_policy(RoleName=ROLE, PolicyArn=f"arn:aws:iam::aws:policy/{managed}")


@mistake(issue=r"(?i)trust|assume")
def trusted_by_ec2(aws, handles):
    _role(aws, handles, services=("ec2.amazonaws.com",))


@mistake(issue=r"(?i)trust|assume")
def trusted_by_lambda_and_ec2(aws, handles):
    _role(aws, handles, services=("lambda.amazonaws.com", "ec2.amazonaws.com"))


@mistake(issue=r"(?i)may also")
def every_dynamodb_action(aws, handles):
    _role(aws, handles, actions=("dynamodb:*",))


@mistake(issue=r"(?i)may also")
def on_every_table(aws, handles):
    _role(aws, handles, resource="*")


@mistake(issue=r"(?i)may also")
def full_access_managed_policy(aws, handles):
    _role(aws, handles, actions=(), managed="AmazonDynamoDBFullAccess")


@mistake(issue=r"(?i)PutItem")
def read_only(aws, handles):
    _role(aws, handles, actions=("dynamodb:GetItem",))


@mistake(after_solve=True, issue=r"no longer exists")
def table_deleted(aws, handles):
    aws.client("dynamodb").delete_table(TableName=handles["01_01_table"])
