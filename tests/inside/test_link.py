"""The evaluation process's line to the gateway (harness/inside/link.py) and the template's rehearsals
(harness/inside/rehearsal.py), against a real gateway in front of a real moto server.

Both lean on one botocore internal, what a client's Endpoint sends with (harness/_compat/botocore.py; its guard
is tests/_compat/test_botocore.py): these tests fail if botocore stops sending through it.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest
from botocore.exceptions import EndpointConnectionError

from harness._compat.botocore import sender
from harness.core.account import Account
from harness.core.readonly import is_read
from harness.inside.link import GatewayHTTP, GatewayLink
from harness.inside.rehearsal import Rehearsal, minimal_input, rehearse
from harness.inside.session import GATEWAY_URL, GatewaySession
from harness.sandbox.gateway import Gateway
from tests.conftest import REGION, MotoAccount, gateway_session

LAB_SERVICES = ("ec2", "s3", "iam", "sts", "dynamodb", "lambda", "sqs", "sns", "elbv2", "logs", "apigateway")


def test_every_client_sends_over_the_link_whatever_its_endpoint(gateway: Gateway, sandbox: Account) -> None:
    with gateway_session(gateway, sandbox) as (session, token):
        plain = session.client("ec2")
        elsewhere = session.client("ec2", endpoint_url="http://169.254.169.254")  # a module's own endpoint
        resource = session.resource("s3")
        for client in (plain, elsewhere, resource.meta.client):
            assert isinstance(sender(client), GatewayHTTP)
        plain.describe_vpcs()
        list(resource.buckets.all())
        log = gateway.finish(token)
    assert plain.meta.endpoint_url == f"{GATEWAY_URL}/ec2/{REGION}"
    assert [(op.service, op.operation) for op in log] == [("ec2", "DescribeVpcs"), ("s3", "ListBuckets")]


def test_calls_share_one_kept_alive_connection(gateway: Gateway, sandbox: Account) -> None:
    with gateway_session(gateway, sandbox) as (session, token):
        for _ in range(5):
            session.client("ec2").describe_vpcs()
            session.client("sts").get_caller_identity()
        assert len(session.link._idle) == 1
        gateway.finish(token)


def test_threads_each_get_a_connection_and_every_answer(gateway: Gateway, sandbox: Account, aws: MotoAccount) -> None:
    aws.client("s3").create_bucket(Bucket="seen-by-threads")
    with gateway_session(gateway, sandbox) as (session, token):
        s3 = session.client("s3")
        with ThreadPoolExecutor(8) as threads:
            names = list(threads.map(lambda _: [b["Name"] for b in s3.list_buckets()["Buckets"]], range(32)))
        log = gateway.finish(token)
    assert names == [["seen-by-threads"]] * 32
    assert len(log) == 32 and all(op.allowed for op in log)
    assert 1 <= len(session.link._idle) <= 8


def test_a_connection_opened_before_the_job_carries_its_first_request(gateway: Gateway, sandbox: Account) -> None:
    gateway.start()
    link = GatewayLink()
    link.preconnect(gateway.socket_path)  # a spare: no token yet
    assert link._spare is not None
    token = gateway.open(sandbox)
    link.attach(gateway.socket_path, token)
    spare_connection = link._idle[0]
    GatewaySession(link, REGION).client("sts").get_caller_identity()
    assert link._idle == [spare_connection]  # no second connection was opened
    assert [op.operation for op in gateway.finish(token)] == ["GetCallerIdentity"]


def test_without_an_evaluation_attached_nothing_is_sent() -> None:
    client = GatewaySession(GatewayLink(), REGION).client("sts", config=None)
    with pytest.raises(EndpointConnectionError):
        client.get_caller_identity()


@pytest.mark.parametrize("service", LAB_SERVICES)
def test_minimal_input_passes_validation_for_every_read(service: str) -> None:
    """What a rehearsal sends is valid for botocore: a rehearsal of any read goes the whole way."""
    client = GatewaySession(GatewayLink(), REGION).client(service)
    model = client.meta.service_model
    reads = [
        name
        for name in model.operation_names
        if is_read(service, name) and not model.operation_model(name).has_event_stream_output
    ]
    assert reads
    failed = [name for name in reads if not rehearse(client, name)]
    assert failed == []
    assert isinstance(sender(client), GatewayHTTP)  # given back after each rehearsal


def test_a_rehearsed_client_still_reaches_the_gateway(gateway: Gateway, sandbox: Account) -> None:
    with gateway_session(gateway, sandbox) as (session, token):
        ec2 = session.client("ec2")
        assert rehearse(ec2, "DescribeVpcs")
        assert ec2.describe_vpcs()["Vpcs"]
        log = gateway.finish(token)
    assert [op.operation for op in log] == ["DescribeVpcs"]  # the rehearsal sent nothing


def test_a_rehearsal_answers_in_the_services_protocol() -> None:
    models = {
        service: GatewaySession(GatewayLink(), REGION).client(service).meta.service_model for service in LAB_SERVICES
    }
    assert b"<GetRoleResult></GetRoleResult>" in Rehearsal(models["iam"].operation_model("GetRole"))._body
    assert Rehearsal(models["dynamodb"].operation_model("DescribeTable"))._body == b"{}"
    assert minimal_input(models["s3"].operation_model("GetBucketPolicy").input_shape) == {"Bucket": "x"}


def test_a_rehearsal_resolves_the_shapes_an_answer_with_items_holds() -> None:
    """An empty answer parses without reaching a subnet's members: the rehearsal resolves them (botocore caches each
    on its shape), so an evaluation whose answer lists subnets does not resolve them again after the fork."""
    client = GatewaySession(GatewayLink(), REGION).client("ec2")
    assert rehearse(client, "DescribeSubnets")
    subnets = client.meta.service_model.operation_model("DescribeSubnets").output_shape.members["Subnets"]
    subnet = subnets.__dict__["member"]  # resolved: botocore's CachedProperty keeps it in the instance
    assert "members" in subnet.__dict__ and "serialization" in subnet.__dict__
    tags = subnet.__dict__["members"]["Tags"]
    assert "members" in tags.__dict__["member"].__dict__  # a tag's Key and Value, two levels further down


def test_rehearsals_go_through_the_link_and_leave_nothing_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rehearsal is answered through GatewayHTTP on a socket pair (so the link's first-use work is done before
    the fork too); its sockets are closed once it is over."""
    sent: list[str] = []
    send = GatewayHTTP.send
    monkeypatch.setattr(GatewayHTTP, "send", lambda self, request: sent.append(request.url) or send(self, request))
    client = GatewaySession(GatewayLink(), REGION).client("ec2")
    before = len(os.listdir("/proc/self/fd"))
    assert all(rehearse(client, name) for name in ("DescribeVpcs", "DescribeSubnets", "DescribeRouteTables"))
    assert len(os.listdir("/proc/self/fd")) == before
    assert len(sent) == 3
