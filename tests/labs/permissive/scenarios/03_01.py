import json

from harness.authoring.scenarios import equivalent, mistake, solve

TRUST = {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}


def _role(aws, actions=("logs:CreateLogStream", "logs:PutLogEvents")):
    account = aws.client("sts").get_caller_identity()["Account"]
    iam = aws.client("iam")
    iam.create_role(
        RoleName="items-role", AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [TRUST]})
    )
    allow = {
        "Effect": "Allow",
        "Action": list(actions),
        "Resource": f"arn:aws:logs:us-east-1:{account}:log-group:/aws/lambda/items:*",
    }
    iam.put_role_policy(
        RoleName="items-role",
        PolicyName="logs",
        PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [allow]}),
    )


@equivalent("AssumeRolePolicyDocument", reason="planted: only the permissions policy is under test here")
@solve
def role_may_write_logs(aws, handles):
    _role(aws)


@mistake(issue=r"logs:PutLogEvents")
def may_not_put_events(aws, handles):
    _role(aws, actions=("logs:CreateLogStream",))
