"""KMS validators: the key (rotation, usage, spec, state, aliases; id = KeyId) and an alias (id = AliasName)."""

from __future__ import annotations

from typing import Any

from harness.kit import refs
from harness.kit.kinds import Kind, LazyResource, Resource, first, register, state_in
from harness.kit.later import later
from harness.kit.require import Requirement, require


def _fetch_key(session: Any, key_id: str) -> Resource:
    client = session.client("kms")
    key = client.describe_key(KeyId=key_id)["KeyMetadata"]

    def aliases() -> list[str]:
        pages = client.get_paginator("list_aliases").paginate(KeyId=key["KeyId"])
        return sorted(a["AliasName"] for page in pages for a in page["Aliases"])

    return LazyResource(
        key,
        {
            "RotationEnabled": lambda: client.get_key_rotation_status(KeyId=key["KeyId"])["KeyRotationEnabled"],
            "Aliases": aliases,
            "KeyPolicy": lambda: client.get_key_policy(KeyId=key["KeyId"], PolicyName="default")["Policy"],
        },
    )


def _fetch_alias(session: Any, name: str) -> Resource | None:
    pages = session.client("kms").get_paginator("list_aliases").paginate()
    return first([a for page in pages for a in page["Aliases"] if a["AliasName"] == name])


def _alias_key(session: Any, identity: refs.Identity, spelled: str) -> refs.Identity:
    """An alias (name or ARN) read as the key it points to; AWS managed aliases (`alias/aws/s3`) too."""
    if identity.type != "kms:alias":
        return identity
    key = refs.asked(lambda: session.client("kms").describe_key(KeyId=spelled)["KeyMetadata"])
    if key is None:
        return identity
    arn = refs.arn_identity(key["Arn"])
    return arn if arn is not None else identity


KEY_REFERENCE = refs.Space(
    "kms:key",
    "KMS key",
    ("Arn", "KeyArn", "AliasArn", "KeyId", "TargetKeyId"),
    refs.kms_key_identity,
    _alias_key,
    also=("Aliases",),
)
"""A KMS key by its id, its ARN, an alias or an alias ARN (an alias read as its key, asking KMS), a described key
or alias; an AWS managed key by its alias (`alias/aws/secretsmanager`)."""

KEY = register(
    Kind(
        "AWS::KMS::Key",
        "KMS key",
        _fetch_key,
        settling=state_in("KeyState", {"Creating", "Updating"}),
        retry_after_s=10,
        title=lambda key: ", ".join(key.get("Aliases") or ()) or None,
    )
)
"""`describe_key`'s key metadata (`KeyId`, `Arn`, `KeyState`, `KeyUsage`, `KeySpec`, `KeyManager`) plus
`RotationEnabled`, `Aliases` (their names) and `KeyPolicy` (JSON text), each read when first used. A key is named
by its aliases where it has any (`KMS key alias/orders (1234abcd-...)`)."""
ALIAS = register(Kind("AWS::KMS::Alias", "KMS alias", _fetch_alias))
"""`list_aliases`' alias: `{"AliasName": "alias/orders", "AliasArn", "TargetKeyId"}`."""


def rotation_enabled(enabled: bool = True) -> Requirement:
    """Automatic key rotation is on."""
    return require("automatic rotation", enabled, lambda k: k["RotationEnabled"], hint="Enable automatic key rotation.")


def usable(state: str = "Enabled") -> Requirement:
    """The key's state (Enabled, not Disabled or PendingDeletion)."""
    return require("key state", state, lambda k: k.get("KeyState"))


def spec(value: str = "SYMMETRIC_DEFAULT") -> Requirement:
    """The key spec, e.g. `SYMMETRIC_DEFAULT`."""
    return require("key spec", value, lambda k: k.get("KeySpec"))


def usage(value: str = "ENCRYPT_DECRYPT") -> Requirement:
    """What the key is for; a SYMMETRIC_DEFAULT key can only be ENCRYPT_DECRYPT (moto leaves KeyUsage out)."""
    return require(
        "key usage",
        value,
        lambda k: k.get("KeyUsage") or ("ENCRYPT_DECRYPT" if k.get("KeySpec") == "SYMMETRIC_DEFAULT" else None),
    )


def customer_managed() -> Requirement:
    """A customer managed key, not an AWS managed one."""
    return require("key manager", "CUSTOMER", lambda k: k.get("KeyManager"))


def has_alias(name: str) -> Requirement:
    """The key is named `name`: `alias/orders`, `orders` or the alias's ARN (for a key; an alias's own name is
    `alias_named`)."""
    return refs.refers_among("aliases", refs.KMS_ALIAS, name, lambda k: k["Aliases"])


def alias_named(name: str) -> Requirement:
    """The alias is `name`: `alias/orders`, `orders` or the alias's ARN (for an alias; a key's aliases are
    `has_alias`)."""
    return refs.refers("alias name", refs.KMS_ALIAS, name, lambda a: a.get("AliasArn") or a.get("AliasName"))


@later
def points_to(key: Resource | str | None) -> Requirement:
    """The alias names the key: a described key, its id or ARN, or another alias of it."""
    return refs.refers("target key", KEY_REFERENCE, key, lambda a: a.get("TargetKeyId"))


# --- ARNs --------------------------------------------------------------------------------------------------------


def _kms_arn(resource: str) -> refs.ArnPart | None:
    """`alias/NAME` is the alias `alias/NAME` (as KMS names it); `key/ID` is read the common way."""
    kind, _, rest = refs.split_resource(resource)
    return (kind, f"alias/{rest}", None) if kind == "alias" else None


refs.reads_arns("kms", _kms_arn)
