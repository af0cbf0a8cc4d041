"""Create a DB subnet group in the database group's VPC, and in it a PostgreSQL 16 instance of class db.t3.micro,
its storage encrypted with the lab's key, in the database's security group only, not publicly accessible."""

from harness.kit import ec2, kms, rds
from harness.kit.step import Step


async def run(session, context, logger):
    step = Step(session, context, logger)
    with step:
        key = step.input("01_02_key", kms.KEY)
        db_group = step.input("03_01_db_group", ec2.SECURITY_GROUP)
        subnet_group = step.find("03_02_subnet_group", rds.DB_SUBNET_GROUP, [ec2.in_vpc(db_group["VpcId"])])
        step.find("03_02_database", rds.DB_INSTANCE, [
            rds.available(),
            rds.engine("postgres", "16"),
            rds.instance_class("db.t3.micro"),
            rds.encrypted(),
            rds.encrypted_with(key),
            rds.in_subnet_group(subnet_group),
            rds.security_groups_exactly(db_group),
            rds.publicly_accessible(False),
        ])  # fmt: skip
    return step.result()
