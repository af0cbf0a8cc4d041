"""SSM parameters on moto: described (DescribeParameters), never read; a SecureString's key in every form is
proved in tests/kit/test_references.py (ssm.encrypted_with)."""

from __future__ import annotations

from harness.kit import refs, ssm
from harness.kit.aws import fetch_or_none
from tests.kit.conftest import described, miss, passes, unique

VALUE = "s3cr3t-token"


def _key(session) -> dict:
    """A customer managed key's description."""
    return session.client("kms").create_key(Description="lab")["KeyMetadata"]


def test_the_default_key_and_a_plain_string_are_named(aws_session) -> None:
    key = _key(aws_session)
    client = aws_session.client("ssm")
    default, plain = f"/{unique('app')}/default", f"/{unique('app')}/plain"
    client.put_parameter(Name=default, Value=VALUE, Type="SecureString")
    client.put_parameter(Name=plain, Value=VALUE, Type="String")
    with refs.resolving(refs.Resolver(aws_session)):
        missed = miss(
            ssm.encrypted_with(key["Arn"]), ssm.PARAMETER, default, described(ssm.PARAMETER, aws_session, default)
        )
        plain_parameter = described(ssm.PARAMETER, aws_session, plain)
        not_secure = miss(ssm.encrypted_with(key["Arn"]), ssm.PARAMETER, plain, plain_parameter)
    assert VALUE not in repr(plain_parameter)  # described, never read
    assert missed == f"SSM parameter {default}: it is encrypted with alias/aws/ssm, not with {key['Arn']}."
    assert not_secure == f"SSM parameter {plain}: it is not a SecureString ({key['Arn']})."
    assert miss(ssm.secure_string(), ssm.PARAMETER, plain, plain_parameter) == (
        f"SSM parameter {plain}: type should be SecureString, but is String."
    )
    assert passes(ssm.parameter_type("String"), plain_parameter) and passes(ssm.named(plain), plain_parameter)
    assert miss(ssm.named(plain.upper()), ssm.PARAMETER, plain, plain_parameter) == (
        f"SSM parameter {plain}: name should be {plain.upper()}, but is {plain}."
    )


def test_tier_and_data_type(aws_session) -> None:
    name = f"/{unique('app')}/big"
    aws_session.client("ssm").put_parameter(Name=name, Value="x" * 5000, Type="String", Tier="Advanced")
    parameter = described(ssm.PARAMETER, aws_session, name)
    assert passes(ssm.tier("Advanced"), parameter) and passes(ssm.data_type("text"), parameter)
    assert miss(ssm.tier(), ssm.PARAMETER, name, parameter) == (
        f"SSM parameter {name}: tier should be Standard, but is Advanced."
    )


def test_a_parameter_is_found_by_name_or_arn_and_a_missing_one_is_none(aws_session) -> None:
    name = f"/{unique('app')}/token"
    flat = unique("flat")
    client = aws_session.client("ssm")
    client.put_parameter(Name=name, Value=VALUE, Type="String")
    client.put_parameter(Name=flat, Value=VALUE, Type="String")
    arn = f"arn:aws:ssm:us-east-1:123456789012:parameter{name}"
    assert described(ssm.PARAMETER, aws_session, arn)["Name"] == name
    assert described(ssm.PARAMETER, aws_session, f"arn:aws:ssm:us-east-1:123456789012:parameter/{flat}")["Name"] == flat
    assert fetch_or_none(lambda: ssm.PARAMETER.fetch(aws_session, f"{name}-gone")) is None
    assert fetch_or_none(lambda: ssm.PARAMETER.fetch(aws_session, name[:-1])) is None  # a prefix is not a match
