"""Step 02.02: the mistakes learners make with the log group and the role's log permissions
(solution/boto3/02_02.py solves it)."""

import json

from harness.authoring.scenarios import mistake

WRITE = ("logs:CreateLogStream", "logs:PutLogEvents")


def _group(aws, handles, *, name=None, days=14, role_may_write=True, actions=WRITE, resource=None):
    function = aws.client("lambda").get_function(FunctionName=handles["02_01_function"])["Configuration"]
    wanted = f"/aws/lambda/{function['FunctionName']}"
    logs = aws.client("logs")
    logs.create_log_group(logGroupName=name or wanted)
    if days:
        logs.put_retention_policy(logGroupName=name or wanted, retentionInDays=days)
    if role_may_write:
        _, partition, _, region, account = function["FunctionArn"].split(":")[:5]
        allow = {
            "Effect": "Allow",
            "Action": list(actions),
            "Resource": resource or f"arn:{partition}:logs:{region}:{account}:log-group:{wanted}:*",
        }
        document = json.dumps({"Version": "2012-10-17", "Statement": [allow]})
        aws.client("iam").put_role_policy(RoleName=handles["01_02_role"], PolicyName="logs", PolicyDocument=document)


@mistake(issue=r"(?i)forever")
def kept_forever(aws, handles):
    _group(aws, handles, days=None)


@mistake(issue=r"(?i)retention|30 days")
def kept_a_month(aws, handles):
    _group(aws, handles, days=30)


@mistake(issue=r"(?i)name")
def named_after_the_table(aws, handles):
    _group(aws, handles, name="/aws/lambda/items")


@mistake(issue=r"(?i)logs:CreateLogStream")
def role_may_not_write(aws, handles):
    _group(aws, handles, role_may_write=False)


@mistake(issue=r"may also logs:.*\(inline policy \"logs\" allows logs:\*\)")
def every_logs_action(aws, handles):
    _group(aws, handles, actions=("logs:*",))


@mistake(issue=r"may also logs:CreateLogStream, logs:PutLogEvents on \*")
def writes_to_every_log_group(aws, handles):
    _group(aws, handles, resource="*")
