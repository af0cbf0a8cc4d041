"""Step 02.01: the database password (a secret) and the API token (a SecureString), both under the lab's key."""

from harness.authoring.scenarios import mistake, solve

PARAMETER = "/orders/api-token"


def _key(aws, handles):
    return aws.client("kms").describe_key(KeyId=handles["01_02_key"])["KeyMetadata"]


def _secret(aws, key=None):
    encrypted = {"KmsKeyId": key} if key else {}
    aws.client("secretsmanager").create_secret(Name="orders/db-password", SecretString="s3cr3t-pw", **encrypted)


def _parameter(aws, key=None, *, kind="SecureString", tier="Standard", name=PARAMETER):
    encrypted = {"KeyId": key} if key else {}
    aws.client("ssm").put_parameter(Name=name, Value="t0ken", Type=kind, Tier=tier, **encrypted)


@solve
def both_under_the_key(aws, handles):
    arn = _key(aws, handles)["Arn"]
    _secret(aws, arn)
    _parameter(aws, arn)


@mistake(expect="pass")
def secret_by_alias_parameter_by_alias_arn(aws, handles):
    arn = _key(aws, handles)["Arn"]
    _secret(aws, "alias/orders")
    _parameter(aws, f"{arn.split(':key/')[0]}:alias/orders")


@mistake(expect="pass")
def both_by_key_id(aws, handles):
    key = _key(aws, handles)["KeyId"]
    _secret(aws, key)
    _parameter(aws, key)


@mistake(issue=r"(?i)KMS key")
def secret_with_the_default_key(aws, handles):
    _secret(aws)
    _parameter(aws, _key(aws, handles)["Arn"])


@mistake(issue=r"(?i)type should be SecureString")
def token_as_a_plain_string(aws, handles):
    _secret(aws, _key(aws, handles)["Arn"])
    _parameter(aws, kind="String")


@mistake(issue=r"(?i)encrypted with .*alias/aws/ssm")
def token_with_the_default_key(aws, handles):
    _secret(aws, _key(aws, handles)["Arn"])
    _parameter(aws)


@mistake(issue=r"(?i)KMS key")
def both_under_another_key(aws, handles):
    kms = aws.client("kms")
    other = kms.create_key(Description="scratch")["KeyMetadata"]["KeyId"]
    kms.create_alias(AliasName="alias/orders-old", TargetKeyId=other)
    _secret(aws, "alias/orders-old")
    _parameter(aws, other)


@mistake(issue=r"(?i)tier")
def token_in_the_advanced_tier(aws, handles):
    arn = _key(aws, handles)["Arn"]
    _secret(aws, arn)
    _parameter(aws, arn, tier="Advanced")


@mistake(issue=r"(?i)name")
def token_misnamed(aws, handles):
    arn = _key(aws, handles)["Arn"]
    _secret(aws, arn)
    _parameter(aws, arn, name="/orders/token")
