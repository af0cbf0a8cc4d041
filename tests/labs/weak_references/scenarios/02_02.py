from harness.authoring.scenarios import solve


@solve
def secret_and_parameter(aws, handles):
    key = aws.client("kms").describe_key(KeyId=handles["02_01_key"])["KeyMetadata"]["Arn"]
    aws.client("secretsmanager").create_secret(Name="orders/db", SecretString="pw", KmsKeyId=key)
    aws.client("ssm").put_parameter(Name="/orders/token", Value="t", Type="SecureString", KeyId="alias/orders")
