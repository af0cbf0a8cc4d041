"""Outsider: step 03.02 (subnet group and PostgreSQL)."""

from harness.authoring.scenarios import mistake, solve

from ._lib import all_of, database, subnets, vpc_of


def _subnet_group(aws, handles, name="orders-db-subnets", vpc=None):
    ids = subnets(aws, vpc or vpc_of(aws, handles["03_01_db_group"]))
    aws.client("rds").create_db_subnet_group(
        DBSubnetGroupName=name, DBSubnetGroupDescription="orders db", SubnetIds=ids
    )


@solve
def private_encrypted_postgres(aws, handles):
    _subnet_group(aws, handles)
    database(aws, handles)


@mistake(issue=all_of("orders-db\\b", "(public)"))
def publicly_accessible(aws, handles):
    """Cause: DB instance orders-db is publicly accessible."""
    _subnet_group(aws, handles)
    database(aws, handles, PubliclyAccessible=True)


@mistake(issue=all_of("orders-db\\b", "KMS key", "(alias/aws/rds|the default key)"))
def encrypted_with_the_default_rds_key(aws, handles):
    """Cause: orders-db is encrypted with aws/rds (no KmsKeyId), not the lab's key."""
    _subnet_group(aws, handles)
    args = {}
    rds = aws.client("rds")
    rds.create_db_instance(
        DBInstanceIdentifier="orders-db",
        Engine="postgres",
        EngineVersion="16.3",
        DBInstanceClass="db.t3.micro",
        AllocatedStorage=20,
        MasterUsername="orders",
        MasterUserPassword="not-a-real-password-1",
        DBSubnetGroupName="orders-db-subnets",
        VpcSecurityGroupIds=[handles["03_01_db_group"]],
        StorageEncrypted=True,
        PubliclyAccessible=False,
        **args,
    )


@mistake(issue=all_of("orders-db\\b", "(version|16|15)"))
def postgres_15(aws, handles):
    """Cause: orders-db runs PostgreSQL 15.5, not 16."""
    _subnet_group(aws, handles)
    database(aws, handles, EngineVersion="15.5")


@mistake(issue=all_of("orders-db\\b", "(security group|orders-app|sg-|only)"))
def app_group_also_attached(aws, handles):
    """Cause: orders-db is in both the db group and the API's group (must be in the db group only)."""
    _subnet_group(aws, handles)
    database(aws, handles, VpcSecurityGroupIds=[handles["03_01_db_group"], handles["03_01_app_group"]])


@mistake(issue=all_of("orders-db\\b", "(class|db\\.t3\\.micro|db\\.t3\\.small)"))
def instance_one_size_up(aws, handles):
    """Cause: orders-db is a db.t3.small, not a db.t3.micro."""
    _subnet_group(aws, handles)
    database(aws, handles, DBInstanceClass="db.t3.small")


@mistake(expect="pass")
def equivalent_alias_key_and_minor_version(aws, handles):
    """Equivalent: key named by alias ARN, engine version 16.1, gp3 storage, backups 7 days."""
    _subnet_group(aws, handles)
    meta = aws.client("kms").describe_key(KeyId=handles["01_02_key"])["KeyMetadata"]
    alias_arn = meta["Arn"].split(":key/")[0] + ":alias/orders"
    database(aws, handles, KmsKeyId=alias_arn, EngineVersion="16.1", StorageType="gp3", BackupRetentionPeriod=7)
