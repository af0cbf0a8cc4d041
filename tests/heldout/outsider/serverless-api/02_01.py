"""Outsider: step 02.01 (the function)."""

from harness.authoring.scenarios import mistake

from ._lib import all_of, function, role, scratch_table


def _role_arn(aws, handles):
    return aws.client("iam").get_role(RoleName=handles["01_02_role"])["Role"]["Arn"]


@mistake(issue=all_of("items-api", "TABLE_NAME", "items\\b(?!-)"))
def env_points_at_scratch_table(aws, handles):
    """Mis-wired: TABLE_NAME=items-dev (a scratch table the learner made) rather than items."""
    function(aws, "items-api", _role_arn(aws, handles), scratch_table(aws))


@mistake(issue=all_of("items-api", "(runtime|python3\\.12)"))
def python_311(aws, handles):
    """Cause: function items-api runs python3.11, not Python 3.12."""
    function(aws, "items-api", _role_arn(aws, handles), handles["01_01_table"], runtime="python3.11")


@mistake(issue=all_of("items-api", "handler", "app\\.handler"))
def console_default_handler(aws, handles):
    """Cause: handler left at the console's lambda_function.lambda_handler instead of app.handler."""
    function(
        aws, "items-api", _role_arn(aws, handles), handles["01_01_table"], handler="lambda_function.lambda_handler"
    )


@mistake(issue=all_of("items-api", "role", "items-api-role"))
def runs_as_a_scratch_role(aws, handles):
    """Mis-wired: the function runs as lambda-basic (a role the console made), not as items-api-role."""
    other = role(aws, "lambda-basic", {"Effect": "Allow", "Action": "logs:*", "Resource": "*"})
    function(aws, "items-api", other, handles["01_01_table"])


@mistake(expect="pass")
def equivalent_set_env_after_create_by_role_name_arn(aws, handles):
    """Equivalent: created without env, then update_function_configuration adds TABLE_NAME and LOG_LEVEL."""
    lam = aws.client("lambda")
    function(aws, "items-api", _role_arn(aws, handles), "placeholder")
    lam.update_function_configuration(
        FunctionName="items-api",
        Environment={"Variables": {"LOG_LEVEL": "INFO", "TABLE_NAME": handles["01_01_table"]}},
        MemorySize=256,
        Timeout=10,
    )
