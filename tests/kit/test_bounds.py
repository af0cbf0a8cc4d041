"""Numbers a lab bounds ("at most 5 receives"): a bound compares equal to each number it admits, on any requirement."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.kit import awslambda, cloudwatch, compute, ecs, logs, rds, sqs
from harness.kit.bounds import Bound, at_least, at_most, between
from tests.kit.conftest import described, miss, passes
from tests.kit.test_messaging import queue

NUMBERS = st.integers(-1000, 1000)


@given(n=NUMBERS, high=NUMBERS, low=NUMBERS)
def test_a_bound_admits_exactly_the_numbers_within_it(n: int, high: int, low: int) -> None:
    assert (n == at_most(high)) is (n <= high)
    assert (n == at_least(low)) is (n >= low)
    assert (str(n) == at_most(high)) is (n <= high)  # AWS gives some numbers as strings ("300")
    if low <= high:
        assert (n == between(low, high)) is (low <= n <= high)
        assert (float(n) == between(low, high)) is (low <= n <= high)
    assert at_most(high) != "five" and at_most(high) is not None and at_most(high) != True  # noqa: E712


def test_a_bound_reads_as_a_sentence_and_refuses_nonsense() -> None:
    assert (str(at_most(5)), str(at_least(60)), str(between(1, 10.5))) == ("at most 5", "at least 60", "from 1 to 10.5")
    for wrong in (lambda: Bound(), lambda: between(5, 1), lambda: at_most("5"), lambda: at_least(True)):
        with pytest.raises((TypeError, ValueError)):
            wrong()


REQUIREMENTS = [  # (requirement given a number or bound, a resource holding `value`)
    (awslambda.memory, lambda v: {"MemorySize": v}),
    (awslambda.timeout, lambda v: {"Timeout": v}),
    (awslambda.batch_size, lambda v: {"BatchSize": v}),
    (cloudwatch.period, lambda v: {"Period": v}),
    (cloudwatch.evaluation_periods, lambda v: {"EvaluationPeriods": v}),
    (compute.volume_size, lambda v: {"Size": v}),
    (ecs.desired_count, lambda v: {"desiredCount": v}),
    (logs.retention, lambda v: {"retentionInDays": v}),
    (rds.backup_retention, lambda v: {"BackupRetentionPeriod": v}),
    (sqs.visibility_timeout, lambda v: {"VisibilityTimeout": str(v)}),
    (sqs.retention, lambda v: {"MessageRetentionPeriod": str(v)}),
    (sqs.delay, lambda v: {"DelaySeconds": str(v)}),
]


@pytest.mark.parametrize(("requirement", "holding"), REQUIREMENTS)
@given(value=st.integers(0, 500), limit=st.integers(0, 500))
def test_every_numeric_requirement_takes_a_bound(requirement, holding, value: int, limit: int) -> None:
    assert passes(requirement(at_most(limit)), holding(value)) is (value <= limit)
    assert passes(requirement(at_least(limit)), holding(value)) is (value >= limit)
    assert passes(requirement(value), holding(value))


def test_at_most_n_receives_before_the_dead_letter_queue(aws_session) -> None:
    _, dlq_arn = queue(aws_session)
    url, _ = queue(aws_session, RedrivePolicy=json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 3}))
    found = described(sqs.QUEUE, aws_session, url)
    assert passes(sqs.dead_letter_queue(dlq_arn, max_receives=at_most(5)), found)
    assert passes(sqs.dead_letter_queue(dlq_arn, max_receives=3), found)  # equality, as before
    assert not passes(sqs.dead_letter_queue(dlq_arn, max_receives=5), found)
    assert miss(sqs.dead_letter_queue(dlq_arn, max_receives=at_most(2)), sqs.QUEUE, url, found) == (
        f"SQS queue {url.rsplit('/', 1)[1]}: dead-letter queue should be {dlq_arn} after at most 2 receives, "
        f"but is {dlq_arn} after 3 receives."
    )
    _, other = queue(aws_session)
    assert not passes(sqs.dead_letter_queue(other, max_receives=at_most(5)), found)
    assert not passes(sqs.dead_letter_queue(dlq_arn, max_receives=at_least(4)), found)
