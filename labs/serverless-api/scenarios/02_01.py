"""Step 02.01: the mistakes learners make with the function (solution/boto3/02_01.py solves it)."""

import io
import json
import zipfile

from harness.authoring.scenarios import mistake

SOURCE = (
    "import os\n\n\ndef handler(event, context):\n    return {'statusCode': 200, 'body': os.environ['TABLE_NAME']}\n"
)


def _code():
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr(zipfile.ZipInfo("app.py", date_time=(2026, 1, 1, 0, 0, 0)), SOURCE)  # same bytes every time
    return archive.getvalue()


def _function(aws, handles, *, runtime="python3.12", handler="app.handler", role=None, environment=True):
    role_arn = aws.client("iam").get_role(RoleName=role or handles["01_02_role"])["Role"]["Arn"]
    variables = {"Variables": {"TABLE_NAME": handles["01_01_table"]}} if environment else {"Variables": {}}
    aws.client("lambda").create_function(
        FunctionName="items-api", Runtime=runtime, Handler=handler, Role=role_arn, Code={"ZipFile": _code()},
        Environment=variables,
    )  # fmt: skip


@mistake(issue=r"(?i)runtime")
def older_runtime(aws, handles):
    _function(aws, handles, runtime="python3.9")


@mistake(issue=r"(?i)handler")
def console_default_handler(aws, handles):
    _function(aws, handles, handler="lambda_function.lambda_handler")


@mistake(issue=r"(?i)execution role")
def another_role(aws, handles):
    principal = {"Service": "lambda.amazonaws.com"}
    lambda_may_assume = {"Effect": "Allow", "Principal": principal, "Action": "sts:AssumeRole"}
    trust = json.dumps({"Version": "2012-10-17", "Statement": [lambda_may_assume]})
    aws.client("iam").create_role(RoleName="another-role", AssumeRolePolicyDocument=trust)
    _function(aws, handles, role="another-role")


@mistake(issue=r"TABLE_NAME")
def table_name_missing(aws, handles):
    _function(aws, handles, environment=False)
