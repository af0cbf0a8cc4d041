"""SSM Parameter Store validators: a parameter (name, type, tier, data type, the KMS key of a SecureString).
Id = its name (an ARN is read as the name it ends with).

Only DescribeParameters is called: an evaluation never reads a parameter's value (the harness refuses GetParameter)."""

from __future__ import annotations

from typing import Any

from harness.kit import kms, refs
from harness.kit.kinds import Kind, Resource, first, register
from harness.kit.require import Requirement, attribute

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
    return first([p for page in pages for p in page["Parameters"] if p["Name"] == name])


PARAMETER = register(Kind("AWS::SSM::Parameter", "SSM parameter", _fetch_parameter))
"""`describe_parameters`' parameter (no value): `{"Name", "ARN", "Type": "String" | "StringList" | "SecureString",
"KeyId", "Tier", "DataType"}`."""


def named(name: str) -> Requirement:
    """The parameter's name is exactly `name` (names are case-sensitive; a hierarchy starts with `/`)."""
    return attribute("name", "Name", name)


def parameter_type(value: str) -> Requirement:
    """String, StringList or SecureString."""
    return attribute("type", "Type", value)


def secure_string() -> Requirement:
    """The value is encrypted (a SecureString): the type is chosen at creation."""
    return attribute(
        "type", "Type", "SecureString", hint="Create the parameter as a SecureString (its type cannot be changed)."
    )


def _key(parameter: Resource) -> str | None:
    """The KMS key a SecureString names (the AWS managed aws/ssm key when it names none); None for a String."""
    if parameter.get("Type") != "SecureString":
        return None
    return parameter.get("KeyId") or DEFAULT_KEY


def encrypted_with(key: Resource | str | None) -> Requirement:
    """A SecureString encrypted with the KMS key: a described key, or its id, ARN, alias or alias ARN; the
    parameter may name its key in any of these forms (an alias is read as the key it points to)."""
    wanted = refs.shown(kms.KEY_REFERENCE, key)
    return refs.refers(
        "KMS key",
        kms.KEY_REFERENCE,
        key,
        _key,
        explain=lambda actual: (
            f"it is encrypted with {actual}, not with {wanted}." if actual else f"it is not a SecureString ({wanted})."
        ),
        hint="Create the SecureString with the lab's KMS key (not the default aws/ssm key).",
    )


def tier(value: str = "Standard") -> Requirement:
    """Standard, Advanced or Intelligent-Tiering."""
    return attribute("tier", "Tier", value)


def data_type(value: str = "text") -> Requirement:
    """text, aws:ec2:image or aws:ssm:integration."""
    return attribute("data type", "DataType", value)


# --- ARNs --------------------------------------------------------------------------------------------------------


def _parameter_arn(resource: str) -> refs.ArnPart | None:
    """`parameter/PATH/NAME` is the parameter `/PATH/NAME`; `parameter/NAME` is `NAME`."""
    kind, _, rest = refs.split_resource(resource)
    return (kind, f"/{rest}" if "/" in rest else rest, None) if kind == "parameter" else None


refs.reads_arns("ssm", _parameter_arn)
