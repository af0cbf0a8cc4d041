"""Step 01.02: a symmetric customer managed key, rotated automatically, with the alias alias/orders."""

from harness.authoring.scenarios import mistake, solve


def _key(aws, *, rotation=True, spec="SYMMETRIC_DEFAULT", usage="ENCRYPT_DECRYPT"):
    kms = aws.client("kms")
    key = kms.create_key(Description="orders", KeySpec=spec, KeyUsage=usage)["KeyMetadata"]
    if rotation:
        kms.enable_key_rotation(KeyId=key["KeyId"])
    return key


def _alias(aws, key, name="alias/orders"):
    aws.client("kms").create_alias(AliasName=name, TargetKeyId=key)


@solve
def rotated_key_with_alias(aws, handles):
    _alias(aws, _key(aws)["KeyId"])


@mistake(expect="pass")
def alias_given_the_key_arn_and_a_yearly_rotation_period(aws, handles):
    key = _key(aws, rotation=False)
    aws.client("kms").enable_key_rotation(KeyId=key["Arn"], RotationPeriodInDays=365)
    _alias(aws, key["Arn"])


@mistake(issue=r"(?i)automatic rotation")
def not_rotated(aws, handles):
    _alias(aws, _key(aws, rotation=False)["KeyId"])


@mistake(issue=r"(?i)aliases|alias|rotation")
def alias_on_a_scratch_key(aws, handles):
    """The alias names the later, unrotated key: that key is the one explained (its rotation), or the alias."""
    _key(aws)
    _alias(aws, _key(aws, rotation=False)["KeyId"])


@mistake(issue=r"(?i)aliases")
def alias_misspelt(aws, handles):
    _alias(aws, _key(aws)["KeyId"], name="alias/order")


@mistake(issue=r"(?i)key spec")
def an_asymmetric_key(aws, handles):
    _alias(aws, _key(aws, rotation=False, spec="RSA_2048", usage="SIGN_VERIFY")["KeyId"])
