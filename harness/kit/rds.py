"""RDS validators: a DB instance (engine, class, Multi-AZ, encryption, subnet group, public access, backups;
id = DBInstanceIdentifier) and a DB subnet group (id = its name)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from harness.kit import kms, refs
from harness.kit.bounds import Bound
from harness.kit.kinds import Kind, Resource, first, register, state_in
from harness.kit.later import later
from harness.kit.require import Requirement, attribute, require


def _fetch_instance(session: Any, identifier: str) -> Resource | None:
    return first(session.client("rds").describe_db_instances(DBInstanceIdentifier=identifier)["DBInstances"])


def _fetch_subnet_group(session: Any, name: str) -> Resource | None:
    return first(session.client("rds").describe_db_subnet_groups(DBSubnetGroupName=name)["DBSubnetGroups"])


SETTLING_STATUSES = frozenset(
    {
        "creating",
        "modifying",
        "rebooting",
        "starting",
        "renaming",
        "resetting-master-credentials",
        "upgrading",
        "maintenance",
        "configuring-enhanced-monitoring",
        "configuring-iam-database-auth",
        "configuring-log-exports",
        "converting-to-vpc",
        "moving-to-vpc",
    }
)
"""DB instance statuses AWS leaves on its own for `available` (backing-up and storage-optimization are not among
them: the instance is usable meanwhile)."""

DB_INSTANCE = register(
    Kind(
        "AWS::RDS::DBInstance",
        "DB instance",
        _fetch_instance,
        settling=state_in("DBInstanceStatus", SETTLING_STATUSES, label="status"),
        retry_after_s=60,
    )
)
"""`describe_db_instances`' instance: `{"DBInstanceIdentifier", "DBInstanceArn", "Engine", "DBInstanceClass",
"MultiAZ", "StorageEncrypted", "KmsKeyId", "PubliclyAccessible", "BackupRetentionPeriod", "DBSubnetGroup":
{"DBSubnetGroupName", "Subnets"}, "VpcSecurityGroups": [{"VpcSecurityGroupId"}]}`."""
DB_SUBNET_GROUP = register(Kind("AWS::RDS::DBSubnetGroup", "DB subnet group", _fetch_subnet_group))
"""`describe_db_subnet_groups`' group: `{"DBSubnetGroupName", "DBSubnetGroupArn", "VpcId", "Subnets":
[{"SubnetIdentifier", "SubnetAvailabilityZone": {"Name"}}]}`."""


def engine(name: str, major_version: str | None = None) -> Requirement:
    """The engine (e.g. `postgres`), and its major version if given (`16` for PostgreSQL 16.x, `8.0` for MySQL
    8.0.x: the version is that or starts with it and a dot)."""
    wanted = f"{name.lower()} {major_version}" if major_version else name.lower()

    def same(actual: str | None, _: str) -> bool:
        engine, _, version = (actual or "").partition(" ")
        if engine != name.lower():
            return False
        return major_version is None or version == major_version or version.startswith(f"{major_version}.")

    return require(
        "engine",
        wanted,
        lambda db: (
            f"{str(db.get('Engine', '')).lower()} {db.get('EngineVersion', '')}".strip()
            if major_version
            else str(db.get("Engine", "")).lower() or None
        ),
        compare=same,
    )


def available() -> Requirement:
    """The instance is `available` (while AWS creates or changes it, the step answers pending, not fail)."""
    return require("status", "available", lambda db: db.get("DBInstanceStatus"), waits=True)


def instance_class(value: str) -> Requirement:
    """The instance class, e.g. `db.t3.micro`."""
    return attribute("instance class", "DBInstanceClass", value)


def multi_az(enabled: bool = True) -> Requirement:
    """A standby in another availability zone (Multi-AZ)."""
    return attribute("Multi-AZ", "MultiAZ", enabled, hint="Turn on Multi-AZ deployment (a standby in another zone).")


def encrypted(enabled: bool = True) -> Requirement:
    """Storage is encrypted (any key; `encrypted_with` names one)."""
    return attribute("storage encryption", "StorageEncrypted", enabled, hint="Encryption is chosen at creation.")


def publicly_accessible(enabled: bool = False) -> Requirement:
    """Reachable from the internet (`True`) or not (the default expectation, `False`)."""
    return attribute("public access", "PubliclyAccessible", enabled)


def backup_retention(days: int | Bound) -> Requirement:
    """Automated backups are kept this many days."""
    return attribute("backup retention (days)", "BackupRetentionPeriod", days)


DEFAULT_KEY = "alias/aws/rds"
"""The AWS managed key an encrypted instance gets when none is chosen."""

_KEY_SPELLING = re.compile(r"arn:.+|alias/.+|(mrk-)?[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}")


def _storage_key(db: Resource) -> str | None:
    """The key encrypting the instance's storage, None when unencrypted; a `KmsKeyId` that spells no key (an
    emulator's placeholder for "none chosen") is the AWS managed key, as AWS would report it."""
    if not db.get("StorageEncrypted"):
        return None
    key = db.get("KmsKeyId")
    return key if key and _KEY_SPELLING.fullmatch(key) else DEFAULT_KEY


@later
def encrypted_with(key: Resource | str | None) -> Requirement:
    """Storage encrypted with the KMS key: a described key, its id or ARN, an alias or alias ARN
    (`alias/aws/rds` is the AWS managed key an encrypted instance gets when none is chosen)."""
    return refs.refers(
        "KMS key",
        kms.KEY_REFERENCE,
        key,
        _storage_key,
        hint="The KMS key is chosen at creation: recreate the instance encrypted with the step's key.",
    )


def _security_groups(db: Resource) -> list[str]:
    return sorted(
        g["VpcSecurityGroupId"] for g in db.get("VpcSecurityGroups", []) if g.get("Status", "active") == "active"
    )


@later
def with_security_group(group: Resource | str | None) -> Requirement:
    """The instance's VPC security groups include the group (a described group, its id or ARN)."""
    return refs.refers_among("security groups", refs.SECURITY_GROUP, group, _security_groups)


@later
def security_groups_exactly(*groups: Resource | str | None) -> Requirement:
    """The instance's VPC security groups are exactly these (described groups, their ids or ARNs): the VPC's
    default group beside them fails."""
    return refs.refers_exactly("security groups", refs.SECURITY_GROUP, groups, _security_groups)


@later
def in_subnet_group(group: Resource | str | None) -> Requirement:
    """In the DB subnet group (a described group, its name in any case, or its ARN)."""
    return refs.refers(
        "subnet group", refs.DB_SUBNET_GROUP, group, lambda db: (db.get("DBSubnetGroup") or {}).get("DBSubnetGroupName")
    )


@later
def subnets_exactly(subnets: Iterable[Resource | str | None]) -> Requirement:
    """The subnet group spans exactly these subnets (described subnets, their ids or ARNs)."""
    return refs.refers_exactly(
        "subnets",
        refs.SUBNET,
        subnets,
        lambda group: sorted(s["SubnetIdentifier"] for s in group.get("Subnets", [])),
    )


# --- ARNs --------------------------------------------------------------------------------------------------------


refs.reads_arns("rds", caseless=True)  # RDS stores identifiers in lower case
