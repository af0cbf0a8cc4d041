"""Outsider: step 02.02 (log group, retention, logging permissions)."""

from harness.authoring.scenarios import mistake

from ._lib import all_of, doc

GROUP = "/aws/lambda/items-api"


def _arn_parts(aws, handles):
    arn = aws.client("lambda").get_function(FunctionName=handles["02_01_function"])["Configuration"]["FunctionArn"]
    _, partition, _, region, account = arn.split(":")[:5]
    return partition, region, account


def _logs_statement(aws, handles, group=GROUP):
    p, r, a = _arn_parts(aws, handles)
    return {
        "Effect": "Allow",
        "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
        "Resource": f"arn:{p}:logs:{r}:{a}:log-group:{group}:*",
    }


def _put_logs(aws, handles, statement):
    aws.client("iam").put_role_policy(RoleName=handles["01_02_role"], PolicyName="logs", PolicyDocument=doc(statement))


@mistake(issue=all_of("/aws/lambda/items-api", "(retention|14|never)"))
def retention_never_set(aws, handles):
    """Cause: the log group /aws/lambda/items-api has no retention (never expire), not 14 days."""
    aws.client("logs").create_log_group(logGroupName=GROUP)
    _put_logs(aws, handles, _logs_statement(aws, handles))


@mistake(issue=all_of("items-api-role", "(CreateLogGroup|\\*)"))
def basic_execution_role_attached(aws, handles):
    """Cause: the learner attached AWSLambdaBasicExecutionRole: logs:CreateLogGroup and writes on * are more."""
    logs = aws.client("logs")
    logs.create_log_group(logGroupName=GROUP)
    logs.put_retention_policy(logGroupName=GROUP, retentionInDays=14)
    aws.client("iam").attach_role_policy(
        RoleName=handles["01_02_role"], PolicyArn="arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
    )


@mistake(issue=all_of("items-api-role", "(PutLogEvents|CreateLogStream)", "/aws/lambda/items-api\\b(?!-)"))
def writes_to_the_wrong_group(aws, handles):
    """Mis-wired: the logs policy names /aws/lambda/items-api-dev (a typo'd group), not the function's group."""
    logs = aws.client("logs")
    logs.create_log_group(logGroupName=GROUP)
    logs.put_retention_policy(logGroupName=GROUP, retentionInDays=14)
    _put_logs(aws, handles, _logs_statement(aws, handles, "/aws/lambda/items-api-dev"))


@mistake(issue=all_of("/aws/lambda/items-api\\b(?!-)", "(no longer|not found|missing|exist|log group)"))
def group_named_after_the_role_decoy(aws, handles):
    """Cause: the group is /aws/lambda/items-api-role (named after the role), so the function's group is missing."""
    logs = aws.client("logs")
    logs.create_log_group(logGroupName="/aws/lambda/items-api-role")
    logs.put_retention_policy(logGroupName="/aws/lambda/items-api-role", retentionInDays=14)
    _put_logs(aws, handles, _logs_statement(aws, handles, "/aws/lambda/items-api-role"))


@mistake(expect="pass")
def equivalent_log_stream_arn_in_managed_policy(aws, handles):
    """Equivalent: retention set at creation-time path via put_retention_policy; permissions in a customer managed
    policy, resource written as ...:log-group:GROUP:log-stream:*, one statement per action."""
    logs = aws.client("logs")
    logs.create_log_group(logGroupName=GROUP, tags={"app": "items"})
    logs.put_retention_policy(logGroupName=GROUP, retentionInDays=14)
    p, r, a = _arn_parts(aws, handles)
    streams = f"arn:{p}:logs:{r}:{a}:log-group:{GROUP}:log-stream:*"
    iam = aws.client("iam")
    arn = iam.create_policy(
        PolicyName="items-api-logs",
        PolicyDocument=doc(
            {"Effect": "Allow", "Action": "logs:CreateLogStream", "Resource": streams},
            {"Effect": "Allow", "Action": "logs:PutLogEvents", "Resource": streams},
        ),
    )["Policy"]["Arn"]
    iam.attach_role_policy(RoleName=handles["01_02_role"], PolicyArn=arn)
