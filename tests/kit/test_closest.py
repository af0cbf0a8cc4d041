"""Which candidate explains an output none fits (`harness.kit.closest`): the one tied to the step's work, then
the fewest telling misses, then the nearest, then the most recently created; never the first in event order."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from harness.kit import closest
from harness.kit.kinds import Kind
from harness.kit.outputs import verdict_of
from harness.kit.require import Requirement, require

KIND = Kind("AWS::Events::Rule", "EventBridge rule", lambda session, rid: None)
SCHEDULE = require("schedule", "rate(5 minutes)", lambda r: r.get("ScheduleExpression"))
STATE = require("state", "ENABLED", lambda r: r.get("State"))
TARGET = require("target", "arn:aws:sns:us-east-1:123456789012:alerts", lambda r: r.get("Target"))


def judged(*resources: tuple[str, dict[str, Any]], requirements: tuple[Requirement, ...] = (SCHEDULE, STATE)):
    return [
        closest.Judged((rid, resource), verdict_of(KIND, resource, [r.evaluate(resource) for r in requirements]), i)
        for i, (rid, resource) in enumerate(resources)
    ]


def first(entries, anchors: closest.Anchors | None = None) -> str:
    return closest.rank(entries, anchors or closest.Anchors())[0].candidate[0]


def test_the_learners_later_rule_beats_an_older_disabled_one_missing_as_many() -> None:
    older = ("old", {"ScheduleExpression": "rate(5 minutes)", "State": "DISABLED"})
    mine = ("mine", {"ScheduleExpression": "rate(10 minutes)", "State": "ENABLED"})
    assert first(judged(older, mine)) == "mine"
    assert first(judged(mine, older)) == "old"  # event order alone: the later event is the last attempt


def test_creation_time_beats_event_order_where_every_candidate_has_one() -> None:
    early = datetime(2026, 1, 1, tzinfo=UTC)
    late = datetime(2026, 6, 1, tzinfo=UTC)
    newer = ("newer", {"ScheduleExpression": "rate(1 hour)", "State": "ENABLED", "CreationDate": late})
    older = ("older", {"ScheduleExpression": "rate(5 minutes)", "State": "DISABLED", "CreationDate": early})
    assert first(judged(newer, older)) == "newer"
    as_text = ("text", {"ScheduleExpression": "rate(1 hour)", "State": "ENABLED", "CreatedTimestamp": "1780000000"})
    epoch = ("epoch", {"ScheduleExpression": "rate(5 minutes)", "State": "DISABLED", "CreatedTimestamp": 1700000000})
    assert first(judged(as_text, epoch)) == "text"


def test_fewer_misses_beat_recency() -> None:
    right_but_off = ("a", {"ScheduleExpression": "rate(5 minutes)", "State": "DISABLED"})
    wrong_twice = ("b", {"ScheduleExpression": "rate(1 hour)", "State": "DISABLED", "Extra": 1})
    # b is later, but misses the schedule too; both miss the state alike (opaque), so only the schedule tells
    assert first(judged(right_but_off, wrong_twice)) == "a"


def test_a_candidate_tied_to_an_input_beats_fewer_misses() -> None:
    topic = ("arn:aws:sns:us-east-1:123456789012:alerts", {"TopicArn": "arn:aws:sns:us-east-1:123456789012:alerts"})
    scratch = ("scratch", {"ScheduleExpression": "rate(5 minutes)", "State": "ENABLED", "Target": "elsewhere"})
    mine = ("mine", {"ScheduleExpression": "rate(1 hour)", "State": "DISABLED", "Target": topic[0]})
    entries = judged(mine, scratch, requirements=(SCHEDULE, STATE))
    assert first(entries) == "scratch"
    assert first(entries, closest.Anchors(inputs=[topic])) == "mine"


def test_an_output_that_reads_the_candidate_ties_it_and_one_it_reads_must_be_named_by_it() -> None:
    bucket_a, bucket_b = ("site-scratch", {"Name": "site-scratch"}), ("site-logs", {"Name": "site-logs"})
    trail = ("trail", {"S3BucketName": "site-logs"})
    entries = [closest.Judged(bucket_a, None, 1), closest.Judged(bucket_b, None, 0)]
    assert first(entries, closest.Anchors(readers=[trail])) == "site-logs"
    assert first(entries, closest.Anchors(read=[trail])) == "site-scratch"  # the buckets do not name the trail


def test_an_opaque_requirement_decides_nothing_and_is_named_last() -> None:
    a = ("a", {"ScheduleExpression": "rate(1 hour)", "State": "DISABLED"})
    b = ("b", {"ScheduleExpression": "rate(5 minutes)", "State": "DISABLED"})
    entries = judged(a, b)
    assert closest.opaque_checks(entries) == {"state"}
    chosen = closest.rank(entries, closest.Anchors())[0]
    assert chosen.candidate[0] == "b"  # fewer telling misses (none), though both miss the state
    named = closest.named_miss(judged(a, b)[0].verdict, {"state"})
    assert named.requirement.check == "schedule"


def test_a_set_sharing_more_with_the_expected_is_nearer() -> None:
    rules = require("inbound rules", ["TCP 80 from 0.0.0.0/0"], lambda g: g["Rules"])
    near = ("near", {"Rules": ["TCP 80 from 0.0.0.0/0", "TCP 443 from 0.0.0.0/0"]})
    far = ("far", {"Rules": ["TCP 22 from 10.0.0.0/8"]})
    assert first(judged(near, far, requirements=(rules,))) == "near"


def test_identifiers_are_the_resources_own_names_never_what_it_refers_to() -> None:
    url = "https://sqs.us-east-1.amazonaws.com/123456789012/orders"
    queue = (url, {"QueueArn": "arn:aws:sqs:us-east-1:123456789012:orders", "VpcId": "vpc-0abc12345"})
    assert closest.identifiers(queue) == {url, "arn:aws:sqs:us-east-1:123456789012:orders"}
