"""Outsider: step 01.02 (the key and its alias)."""

from harness.authoring.scenarios import mistake, solve

from ._lib import all_of, key


@solve
def rotated_key_with_alias(aws, handles):
    aws.client("kms").create_alias(AliasName="alias/orders", TargetKeyId=key(aws))


@mistake(issue=all_of("KMS key alias/orders", "rotat"))
def rotation_forgotten(aws, handles):
    """Cause: the key alias/orders names has no automatic rotation."""
    aws.client("kms").create_alias(AliasName="alias/orders", TargetKeyId=key(aws, rotate=False))


@mistake(issue=all_of("alias/orders", "(rotat|points|target|names|other key)"))
def alias_left_on_the_first_attempt(aws, handles):
    """Decoy + mis-wire: first key (no rotation) got alias/orders; a second key with rotation was made after, but the
    alias still names the first one. The learner must be told alias/orders names the key without rotation."""
    first = key(aws, rotate=False, description="first try")
    aws.client("kms").create_alias(AliasName="alias/orders", TargetKeyId=first)
    key(aws, description="orders lab key")


@mistake(issue=all_of("(alias/orders|alias)", "(missing|no alias|not found|exist|alias/orders)"))
def alias_misnamed(aws, handles):
    """Cause: the alias is alias/order (a typo), so alias/orders does not exist."""
    aws.client("kms").create_alias(AliasName="alias/order", TargetKeyId=key(aws))


@mistake(expect="pass")
def equivalent_alias_moved_to_the_new_key(aws, handles):
    """Equivalent: a first key got the alias, then a rotated key, and update_alias moved alias/orders onto it."""
    kms = aws.client("kms")
    first = key(aws, rotate=False, description="first try")
    kms.create_alias(AliasName="alias/orders", TargetKeyId=first)
    kms.update_alias(AliasName="alias/orders", TargetKeyId=key(aws))
