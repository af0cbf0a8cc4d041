"""Step 03.02: a subnet group in the database group's VPC, PostgreSQL 16 in it, encrypted with the lab's key."""

from harness.authoring.scenarios import equivalent, mistake, solve


def _vpc(aws, handles):
    """The database group's VPC."""
    groups = aws.client("ec2").describe_security_groups(GroupIds=[handles["03_01_db_group"]])["SecurityGroups"]
    return groups[0]["VpcId"]


def _subnet_group(aws, handles):
    in_vpc = [{"Name": "vpc-id", "Values": [_vpc(aws, handles)]}]
    subnets = aws.client("ec2").describe_subnets(Filters=in_vpc)["Subnets"]
    two_zones = sorted({s["AvailabilityZone"]: s["SubnetId"] for s in subnets}.items())[:2]
    aws.client("rds").create_db_subnet_group(
        DBSubnetGroupName="orders-db", DBSubnetGroupDescription="orders", SubnetIds=[s for _, s in two_zones]
    )


def _database(
    aws, handles, *, engine="postgres", version="16.3", key="arn", groups=None, public=False, size="db.t3.micro"
):
    _subnet_group(aws, handles)
    key_arn = aws.client("kms").describe_key(KeyId=handles["01_02_key"])["KeyMetadata"]["Arn"]
    encryption = {"StorageEncrypted": key is not None}
    if key is not None and key != "default":
        encryption["KmsKeyId"] = key_arn if key == "arn" else key
    aws.client("rds").create_db_instance(
        DBInstanceIdentifier="orders", Engine=engine, EngineVersion=version, DBInstanceClass=size, AllocatedStorage=20,
        MasterUsername="orders", MasterUserPassword="change-me-1234", DBSubnetGroupName="orders-db",
        VpcSecurityGroupIds=groups or [handles["03_01_db_group"]], PubliclyAccessible=public, **encryption,
    )  # fmt: skip


def _default_group(aws, handles):
    filters = [{"Name": "vpc-id", "Values": [_vpc(aws, handles)]}, {"Name": "group-name", "Values": ["default"]}]
    return aws.client("ec2").describe_security_groups(Filters=filters)["SecurityGroups"][0]["GroupId"]


@equivalent(
    "CreateDBSubnetGroup SubnetIds-", reason="AWS refuses a DB subnet group that covers one zone (moto takes it)"
)
@equivalent("CreateDBInstance AllocatedStorage=", reason="the instruction names no storage size")
@solve
def encrypted_postgres_in_the_database_group(aws, handles):
    _database(aws, handles)


@mistake(expect="pass")
def key_given_by_its_alias(aws, handles):
    _database(aws, handles, key="alias/orders")


@mistake(issue=r"(?i)engine")
def mysql_instead(aws, handles):
    _database(aws, handles, engine="mysql", version="8.0.35")


@mistake(issue=r"(?i)engine")
def postgres_15(aws, handles):
    _database(aws, handles, version="15.5")


@mistake(issue=r"(?i)instance class")
def a_bigger_class(aws, handles):
    _database(aws, handles, size="db.m5.large")


@mistake(issue=r"(?i)storage encryption")
def not_encrypted(aws, handles):
    _database(aws, handles, key=None)


@mistake(issue=r"(?i)KMS key")
def encrypted_with_the_default_key(aws, handles):
    _database(aws, handles, key="default")


@mistake(issue=r"(?i)public access")
def publicly_accessible(aws, handles):
    _database(aws, handles, public=True)


@mistake(issue=r"(?i)security groups")
def in_the_default_group(aws, handles):
    _database(aws, handles, groups=[_default_group(aws, handles)])


@mistake(issue=r"(?i)security groups")
def in_the_default_group_too(aws, handles):
    _database(aws, handles, groups=[handles["03_01_db_group"], _default_group(aws, handles)])
