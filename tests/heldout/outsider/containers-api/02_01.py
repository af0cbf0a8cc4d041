"""Outsider: step 02.01 (the secret and the SecureString)."""

from harness.authoring.scenarios import mistake, solve

from ._lib import all_of, key


def _secret(aws, key_id=None, name="orders/db-password"):
    args = {"Name": name, "SecretString": "s3cr3t-password"}
    if key_id:
        args["KmsKeyId"] = key_id
    return aws.client("secretsmanager").create_secret(**args)["ARN"]


def _parameter(aws, key_id=None, *, name="/orders/api-token", kind="SecureString", tier="Standard"):
    args = {"Name": name, "Value": "token-123", "Type": kind, "Tier": tier}
    if key_id and kind == "SecureString":
        args["KeyId"] = key_id
    aws.client("ssm").put_parameter(**args)


@solve
def both_under_the_lab_key(aws, handles):
    _secret(aws, handles["01_02_key"])
    _parameter(aws, "alias/orders")


@mistake(issue=all_of("Secret orders/db-password(?!-)", "(key|kms|encrypt)"))
def secret_under_the_default_key(aws, handles):
    """Cause: the secret orders/db-password is encrypted with aws/secretsmanager (no KmsKeyId), not the lab's key."""
    _secret(aws)
    _parameter(aws, "alias/orders")


@mistake(issue=all_of("/orders/api-token", "(key|kms|encrypt|aws/ssm)"))
def parameter_under_the_default_key(aws, handles):
    """Cause: /orders/api-token is a SecureString under the default aws/ssm key (no --key-id)."""
    _secret(aws, handles["01_02_key"])
    _parameter(aws)


@mistake(issue=all_of("/orders/api-token", "SecureString"))
def parameter_plain_string(aws, handles):
    """Cause: /orders/api-token is a plain String, not a SecureString."""
    _secret(aws, handles["01_02_key"])
    _parameter(aws, kind="String")


@mistake(issue=all_of("Secret orders/db-password(?!-)", "(key|kms|encrypt)"))
def secret_under_a_scratch_key(aws, handles):
    """Mis-wired: the secret names a second customer key the learner made by mistake (not the lab's alias/orders
    key)."""
    other = key(aws, description="scratch")
    _secret(aws, other)
    _parameter(aws, "alias/orders")


@mistake(expect="pass")
def equivalent_alias_arn_and_key_arn(aws, handles):
    """Equivalent: the secret names the key by its alias ARN, the parameter by the key's ARN; a decoy plain
    parameter /orders/feature-flag is created too."""
    meta = aws.client("kms").describe_key(KeyId=handles["01_02_key"])["KeyMetadata"]
    alias_arn = meta["Arn"].split(":key/")[0] + ":alias/orders"
    _parameter(aws, name="/orders/feature-flag", kind="String")
    _secret(aws, alias_arn)
    _parameter(aws, meta["Arn"])
