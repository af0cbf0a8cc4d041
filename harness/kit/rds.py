"""RDS validators: a DB instance (engine, class, Multi-AZ, encryption, subnet group, public access, backups;
id = DBInstanceIdentifier) and a DB subnet group (id = its name)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from harness.kit.kinds import Kind, Resource, first, id_of, register
from harness.kit.require import Requirement, attribute, require


def _fetch_instance(session: Any, identifier: str) -> Resource | None:
    return first(session.client("rds").describe_db_instances(DBInstanceIdentifier=identifier)["DBInstances"])


def _fetch_subnet_group(session: Any, name: str) -> Resource | None:
    return first(session.client("rds").describe_db_subnet_groups(DBSubnetGroupName=name)["DBSubnetGroups"])


DB_INSTANCE = register(Kind("AWS::RDS::DBInstance", "DB instance", _fetch_instance))
DB_SUBNET_GROUP = register(Kind("AWS::RDS::DBSubnetGroup", "DB subnet group", _fetch_subnet_group))


def engine(name: str, major_version: str | None = None) -> Requirement:
    """The engine (e.g. `postgres`), and its major version (e.g. `16`) if given."""
    wanted = f"{name} {major_version}" if major_version else name
    return require(
        "engine",
        wanted,
        lambda db: (
            f"{db.get('Engine')} {str(db.get('EngineVersion', '')).split('.')[0]}"
            if major_version
            else db.get("Engine")
        ),
    )


def instance_class(value: str) -> Requirement:
    return attribute("instance class", "DBInstanceClass", value)


def multi_az(enabled: bool = True) -> Requirement:
    return attribute("Multi-AZ", "MultiAZ", enabled, hint="Turn on Multi-AZ deployment (a standby in another zone).")


def encrypted(enabled: bool = True) -> Requirement:
    return attribute("storage encryption", "StorageEncrypted", enabled, hint="Encryption is chosen at creation.")


def publicly_accessible(enabled: bool = False) -> Requirement:
    return attribute("public access", "PubliclyAccessible", enabled)


def backup_retention(days: int) -> Requirement:
    return attribute("backup retention (days)", "BackupRetentionPeriod", days)


def in_subnet_group(group: Resource | str | None) -> Requirement:
    name = id_of(group, "DBSubnetGroupName")
    return require("subnet group", name, lambda db: (db.get("DBSubnetGroup") or {}).get("DBSubnetGroupName"))


def subnets_exactly(subnets: Iterable[Resource | str | None]) -> Requirement:
    """The subnet group spans exactly these subnets."""
    return require(
        "subnets",
        sorted(str(id_of(s, "SubnetId")) for s in subnets),
        lambda group: sorted(s["SubnetIdentifier"] for s in group.get("Subnets", [])),
    )
