"""What a mutant changes in a call, applied to the parameters of the play it is in (harness/authoring/intercept.py),
and the emulator's waiters (harness/authoring/player.py)."""

from __future__ import annotations

import boto3
import botocore.waiter
import pytest
from botocore.exceptions import WaiterError
from moto import mock_aws

from harness.authoring.intercept import changed_as
from harness.authoring.player import WAITER_ATTEMPTS, WAITER_DELAY_S, quick_waiters

RECORDED = {"TableName": "orders-1111", "BillingMode": "PAY_PER_REQUEST", "Tags": [{"Key": "k", "Value": "a"}]}
LIVE = {"TableName": "orders-2222", "BillingMode": "PAY_PER_REQUEST", "Tags": [{"Key": "k", "Value": "b"}]}


@pytest.mark.parametrize(
    ("mutated", "expected"),
    [
        (RECORDED, LIVE),  # no change: the live parameters as they are
        ({**RECORDED, "BillingMode": "PROVISIONED"}, {**LIVE, "BillingMode": "PROVISIONED"}),
        ({"TableName": "orders-1111", "Tags": RECORDED["Tags"]}, {"TableName": "orders-2222", "Tags": LIVE["Tags"]}),
        ({**RECORDED, "Extra": 1}, {**LIVE, "Extra": 1}),
        ({**RECORDED, "Tags": [{"Key": "k2", "Value": "a"}]}, {**LIVE, "Tags": [{"Key": "k2", "Value": "b"}]}),
        ({**RECORDED, "Tags": []}, {**LIVE, "Tags": []}),  # lengths differ: the mutant's list, whole
    ],
)
def test_a_mutant_changes_what_it_changed_and_keeps_this_plays_values(mutated: dict, expected: dict) -> None:
    assert changed_as(LIVE, RECORDED, mutated) == expected


def test_a_key_this_play_left_out_stays_out_unless_the_mutant_changed_it() -> None:
    recorded = {"Name": "a", "Description": "x"}
    assert changed_as({"Name": "b"}, recorded, {"Name": "a", "Description": "x"}) == {"Name": "b"}
    assert changed_as({"Name": "b"}, recorded, {"Name": "a", "Description": "y"}) == {"Name": "b", "Description": "y"}


@pytest.mark.moto
@mock_aws
def test_a_waiter_on_the_emulator_polls_fast_and_gives_up_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(botocore.waiter.time, "sleep", slept.append)
    client = quick_waiters(boto3.client("dynamodb", region_name="us-east-1"))
    polls: list[str] = []
    client.meta.events.register("before-call.dynamodb.DescribeTable", lambda **_: polls.append("DescribeTable"))
    waiter = client.get_waiter("table_exists")  # botocore's: every 20 s, 25 times
    with pytest.raises(WaiterError) as raised:
        waiter.wait(TableName="missing", WaiterConfig={"Delay": 30})
    assert "Max attempts exceeded" in str(raised.value)
    assert len(polls) == min(25, WAITER_ATTEMPTS) and set(slept) == {WAITER_DELAY_S}
    with pytest.raises(WaiterError):  # a caller asking for fewer attempts gets fewer
        client.get_waiter("table_exists").wait(TableName="missing", WaiterConfig={"MaxAttempts": 2})
    assert len(polls) == min(25, WAITER_ATTEMPTS) + 2
