from harness.authoring.scenarios import solve


@solve
def key_with_alias(aws, handles):
    kms = aws.client("kms")
    key = kms.create_key(Description="orders")["KeyMetadata"]["KeyId"]
    kms.create_alias(AliasName="alias/orders", TargetKeyId=key)
