"""SSM parameters on moto: described (DescribeParameters), never read; a SecureString's key in every form."""

from __future__ import annotations

import pytest

from harness.kit import kms, refs, ssm
from harness.kit.aws import fetch_or_none
from tests.kit.conftest import described, miss, passes, unique

VALUE = "s3cr3t-token"


def _key(session, alias: str) -> tuple[dict, str]:
    """A customer managed key with `alias`: its description, and its alias ARN."""
    client = session.client("kms")
    key = client.create_key(Description="lab")["KeyMetadata"]
    client.create_alias(AliasName=alias, TargetKeyId=key["KeyId"])
    return key, f"{key['Arn'].split(':key/')[0]}:{alias}"


def _forms(key: dict, alias: str, alias_arn: str) -> dict[str, str]:
    return {"id": key["KeyId"], "ARN": key["Arn"], "alias": alias, "alias ARN": alias_arn}


@pytest.mark.parametrize("given", ["id", "ARN", "alias", "alias ARN"])
def test_a_secure_string_is_encrypted_with_its_key_however_either_side_names_it(aws_session, given: str) -> None:
    """The parameter names its key by id, ARN, alias or alias ARN; the requirement by the described key or any
    of the four: every pair is the same key. A second key, named any way, is not."""
    alias = f"alias/{unique('orders')}"
    key, alias_arn = _key(aws_session, alias)
    other, other_alias_arn = _key(aws_session, f"alias/{unique('other')}")
    name = f"/{unique('orders')}/token"
    forms = _forms(key, alias, alias_arn)
    aws_session.client("ssm").put_parameter(Name=name, Value=VALUE, Type="SecureString", KeyId=forms[given])
    parameter = described(ssm.PARAMETER, aws_session, name)
    with refs.resolving(refs.Resolver(aws_session)):  # what Step does around every evaluation
        for wanted in (described(kms.KEY, aws_session, key["KeyId"]), *forms.values()):
            assert passes(ssm.encrypted_with(wanted), parameter), (given, wanted)
        for wanted in (other, *_forms(other, other_alias_arn.rsplit(":", 1)[1], other_alias_arn).values()):
            assert not passes(ssm.encrypted_with(wanted), parameter), (given, wanted)
    assert VALUE not in repr(parameter)


def test_the_default_key_and_a_plain_string_are_named(aws_session) -> None:
    key, _ = _key(aws_session, f"alias/{unique('orders')}")
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
