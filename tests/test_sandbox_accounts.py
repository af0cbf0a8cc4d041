"""One session per worker, many accounts in turn: each evaluation's clients sign with its own credentials,
reach its own region and endpoint, and the previous account's clients are dropped, not kept."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from harness.account import Credentials, SandboxSpec
from harness.readonly import WriteRefused
from harness.sandbox import SandboxFactory, SandboxSession

REGION = "us-east-1"
ALICE = SandboxSpec(Credentials("AKIAALICE0000000000", "alice-secret", "alice-token"), REGION)
BOB = SandboxSpec(Credentials("AKIABOB00000000000", "bob-secret", "bob-token"), REGION)
KEY_ID = re.compile(r"Credential=([^/]+)/")


@pytest.fixture
def factory() -> Iterator[SandboxFactory]:
    with mock_aws():
        yield SandboxFactory()


def signed_with(client: Any) -> tuple[str, str | None]:
    """The key id and session token of the next request `client` sends, read off the signed request."""
    seen: dict[str, Any] = {}

    def capture(request: Any, **_: Any) -> None:
        seen["key"] = KEY_ID.search(request.headers["Authorization"].decode()).group(1)
        token = request.headers.get("X-Amz-Security-Token")
        seen["token"] = token.decode() if isinstance(token, bytes) else token

    client.meta.events.register("before-send", capture)
    try:
        client.describe_vpcs() if client.meta.service_model.service_name == "ec2" else client.list_buckets()
    finally:
        client.meta.events.unregister("before-send", capture)
    return seen["key"], seen["token"]


def cached_keys(session: SandboxSession) -> set[str]:
    """The access keys of every client the session keeps."""
    return {client._request_signer._credentials.access_key for client in session._clients.values()}


def test_each_account_signs_with_its_own_credentials(factory: SandboxFactory) -> None:
    for spec in (ALICE, BOB, ALICE):
        session = factory.open(spec)
        ec2 = session.client("ec2")
        assert signed_with(ec2) == (spec.credentials.access_key, spec.credentials.token)
        assert signed_with(session.client("s3")) == (spec.credentials.access_key, spec.credentials.token)
        frozen = session.get_credentials().get_frozen_credentials()
        assert (frozen.access_key, frozen.secret_key) == (spec.credentials.access_key, spec.credentials.secret_key)


def test_one_session_serves_every_account(factory: SandboxFactory) -> None:
    assert factory.open(ALICE) is factory.open(BOB)


def test_the_previous_accounts_clients_are_dropped(factory: SandboxFactory) -> None:
    session = factory.open(ALICE)
    alice_ec2, alice_s3 = session.client("ec2"), session.client("s3")
    assert cached_keys(session) == {ALICE.credentials.access_key}
    factory.open(BOB)
    assert session.client("ec2") is not alice_ec2
    assert session.client("s3") is not alice_s3
    assert cached_keys(session) == {BOB.credentials.access_key}
    factory.open(ALICE)
    assert session.client("ec2") is not alice_ec2  # rebuilt, not kept from before
    assert cached_keys(session) == {ALICE.credentials.access_key}


def test_the_same_account_reuses_its_clients(factory: SandboxFactory) -> None:
    ec2 = factory.open(ALICE).client("ec2")
    assert factory.open(SandboxSpec.from_message(ALICE.to_message())).client("ec2") is ec2  # as each job decodes it


def test_the_guard_refuses_writes_after_a_switch(factory: SandboxFactory) -> None:
    session = factory.open(ALICE)
    with pytest.raises(WriteRefused, match=r"refused ec2:CreateVpc"):
        session.client("ec2").create_vpc(CidrBlock="10.40.0.0/16")
    assert session.guard.refused == ["ec2:CreateVpc"]
    session = factory.open(BOB)
    assert session.guard.refused == []
    with pytest.raises(WriteRefused, match=r"refused ec2:CreateVpc"):
        session.client("ec2").create_vpc(CidrBlock="10.41.0.0/16")
    with pytest.raises(WriteRefused, match=r"refused s3:CreateBucket"):
        session.resource("s3").create_bucket(Bucket="bobs-bucket")
    assert session.guard.refused == ["ec2:CreateVpc", "s3:CreateBucket"]
    cidrs = {v["CidrBlock"] for v in boto3.client("ec2", region_name=REGION).describe_vpcs()["Vpcs"]}
    assert not cidrs & {"10.40.0.0/16", "10.41.0.0/16"}


def test_a_region_switch_is_honoured(factory: SandboxFactory) -> None:
    session = factory.open(ALICE)
    assert session.region_name == REGION and session.client("ec2").meta.region_name == REGION
    session = factory.open(SandboxSpec(ALICE.credentials, "eu-west-1"))
    assert session.region_name == "eu-west-1"
    ec2 = session.client("ec2")
    assert ec2.meta.region_name == "eu-west-1"
    assert signed_with(ec2)[0] == ALICE.credentials.access_key
    zones = {z["ZoneName"] for z in ec2.describe_availability_zones()["AvailabilityZones"]}
    assert zones and all(z.startswith("eu-west-1") for z in zones)
    assert session.resource("s3").meta.client.meta.region_name == "eu-west-1"


def test_an_endpoint_switch_drops_the_clients(factory: SandboxFactory) -> None:
    dead = SandboxSpec(ALICE.credentials, REGION, "http://127.0.0.1:9")
    s3 = factory.open(dead).client("s3")
    assert s3.meta.endpoint_url == "http://127.0.0.1:9"
    assert s3.meta.config.s3 == {"addressing_style": "path"}
    s3 = factory.open(ALICE).client("s3")
    assert s3.meta.endpoint_url == "https://s3.amazonaws.com"
    assert not (s3.meta.config.s3 or {}).get("addressing_style")


def test_resources_sign_with_the_current_account(factory: SandboxFactory) -> None:
    factory.open(ALICE)
    bucket_client = factory.open(BOB).resource("s3").meta.client
    assert bucket_client._request_signer._credentials.access_key == BOB.credentials.access_key


def test_a_client_with_credentials_of_its_own_is_guarded_and_not_cached(factory: SandboxFactory) -> None:
    session = factory.open(ALICE)
    own = session.client("ec2", aws_access_key_id="AKIAOWN0000000000", aws_secret_access_key="own-secret")
    assert own is not session.client("ec2")
    assert signed_with(own) == ("AKIAOWN0000000000", None)
    with pytest.raises(WriteRefused):
        own.create_vpc(CidrBlock="10.42.0.0/16")
    assert cached_keys(session) == {ALICE.credentials.access_key}


def test_session_handlers_do_not_leak_into_the_next_account(factory: SandboxFactory) -> None:
    def deny(**_: Any) -> None:
        raise RuntimeError("a handler left behind by the last evaluation")

    session = factory.open(ALICE)
    session.events.register("before-send", deny)
    session.client("ec2").meta.events.register("before-send", deny)
    with pytest.raises(RuntimeError):
        session.client("s3").list_buckets()
    for spec in (ALICE, BOB):
        session = factory.open(spec)
        session.client("ec2").describe_vpcs()
        session.client("s3").list_buckets()
