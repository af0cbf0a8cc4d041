"""SSM Parameter Store validators: a parameter (type, tier, data type, the KMS key of a SecureString). Id = its name.

Only DescribeParameters is called (and KMS's DescribeKey/ListAliases for the key): an evaluation never reads a
parameter's value (the harness refuses GetParameter)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from harness.kit.aws import is_not_found
from harness.kit.kinds import Kind, LazyResource, Resource, first, register
from harness.kit.require import Requirement, attribute, require

DEFAULT_KEY = "alias/aws/ssm"
"""The AWS managed key a SecureString is encrypted with when no KeyId is given."""


def _name(parameter_id: str) -> str:
    """A parameter's name from its name or ARN (`arn:aws:ssm:R:A:parameter/app/token` -> `/app/token`)."""
    if not parameter_id.startswith("arn:") or ":parameter/" not in parameter_id:
        return parameter_id
    rest = parameter_id.split(":parameter/", 1)[1]
    return f"/{rest}" if "/" in rest else rest


def _fetch_parameter(session: Any, parameter_id: str) -> Resource | None:
    name = _name(parameter_id)
    filters = [{"Key": "Name", "Option": "Equals", "Values": [name]}]
    pages = session.client("ssm").get_paginator("describe_parameters").paginate(ParameterFilters=filters)
    parameter = first([p for page in pages for p in page["Parameters"] if p["Name"] == name])
    if parameter is None:
        return None
    given = parameter.get("KeyId") or (DEFAULT_KEY if parameter.get("Type") == "SecureString" else None)
    return LazyResource(parameter, {"KmsKey": lambda: _key_names(session.client("kms"), given) if given else ()})


def _key_names(kms: Any, key: str) -> tuple[str, ...]:
    """Every name of the KMS key `key` (id, ARN, alias or alias ARN) denotes: its ARN first, then its id, each
    alias and each alias's ARN; just `key` when KMS does not know it."""
    try:
        metadata = kms.describe_key(KeyId=key)["KeyMetadata"]
    except ClientError as error:
        if is_not_found(error):
            return (key,)
        raise
    pages = kms.get_paginator("list_aliases").paginate(KeyId=metadata["KeyId"])
    aliases = sorted(a["AliasName"] for page in pages for a in page["Aliases"])
    prefix = metadata["Arn"].split(":key/", 1)[0]
    return (metadata["Arn"], metadata["KeyId"], *aliases, *(f"{prefix}:{alias}" for alias in aliases))


PARAMETER = register(Kind("AWS::SSM::Parameter", "SSM parameter", _fetch_parameter))


def parameter_type(value: str) -> Requirement:
    """String, StringList or SecureString."""
    return attribute("type", "Type", value)


def secure_string() -> Requirement:
    """The value is encrypted (a SecureString): the type is chosen at creation."""
    return attribute(
        "type", "Type", "SecureString", hint="Create the parameter as a SecureString (its type cannot be changed)."
    )


def encrypted_with(key: Resource | str | None) -> Requirement:
    """A SecureString encrypted with the KMS key: a described key, or its id, ARN, alias or alias ARN; the
    parameter may name its key in any of these forms (a key given by alias is the key the alias points to)."""
    wanted = str(key.get("Arn") if isinstance(key, dict) else key)
    return require(
        "KMS key",
        wanted,
        lambda p: p["KmsKey"],
        compare=lambda names, expected: expected in names,
        explain=lambda names: (
            f"it is encrypted with {_shown(names)}, not with {wanted}." if names else f"it is not encrypted ({wanted})."
        ),
        hint="Choose the lab's KMS key (not the default aws/ssm key) when you create the SecureString.",
    )


def _shown(names: tuple[str, ...]) -> str:
    aliases = [n for n in names if n.startswith("alias/")]
    return f"{names[0]} ({', '.join(aliases)})" if aliases and names[0] not in aliases else names[0]


def tier(value: str = "Standard") -> Requirement:
    """Standard, Advanced or Intelligent-Tiering."""
    return attribute("tier", "Tier", value)


def data_type(value: str = "text") -> Requirement:
    """text, aws:ec2:image or aws:ssm:integration."""
    return attribute("data type", "DataType", value)
