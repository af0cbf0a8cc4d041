"""The joint choice keeps the learner's own resources against a decoy that satisfies a cross-reference: the issue
names the requirement the learner broke, not one that fails only because a decoy was chosen for the output it
reads (moto-backed, on the edge-audit lab's step 03.01 as its evaluation states it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.core.lab import StepSpec, load_lab
from harness.kit import bounds, grants, sns, sqs
from harness.kit.step import Step
from tests.kit.conftest import make_context, unique

pytestmark = [pytest.mark.moto]

SPEC = """\
project: decoys
objectives:
  - id: "03"
    steps:
      - id: "01"
        outputs:
          - {name: 03_01_topic, type: AWS::SNS::Topic}
          - {name: 03_01_queue, type: AWS::SQS::Queue}
          - {name: 03_01_dead_letter_queue, type: AWS::SQS::Queue}
          - {name: 03_01_subscription, type: AWS::SNS::Subscription}
"""


@pytest.fixture(scope="module")
def step_spec(tmp_path_factory: pytest.TempPathFactory) -> StepSpec:
    root: Path = tmp_path_factory.mktemp("decoys-lab")
    (root / "specs").mkdir()
    (root / "specs" / "decoys.yaml").write_text(SPEC, encoding="utf-8")
    return load_lab(root).steps["03.01"]


def evaluate(step: Step, *, own: bool) -> None:
    """labs/edge-audit/evaluation/boto3/03_01.py's requirements; `own`: the topic has its own (it is subscribed to
    the queue), else it asks nothing of its own and only other outputs refer to it."""
    topic = step.find("03_01_topic", sns.TOPIC, [sns.subscribed("sqs", step.output("03_01_queue"))] if own else [])
    queues = step.find_all(sqs.QUEUE, {
        "03_01_queue": [
            sqs.fifo(False),
            sqs.dead_letter_queue(step.output("03_01_dead_letter_queue"), max_receives=bounds.between(1, 5)),
            grants.only_may("sns.amazonaws.com", "sqs:SendMessage", source=topic),
        ],
        "03_01_dead_letter_queue": [sqs.fifo(False)],
    })  # fmt: skip
    step.find("03_01_subscription", sns.SUBSCRIPTION, [
        sns.on_topic(topic),
        sns.protocol("sqs"),
        sns.endpoint(queues["03_01_queue"]),
        sns.raw_delivery(),
    ])  # fmt: skip


def queue(session: Any, name: str, **attributes: str) -> tuple[str, str]:
    """A standard queue: (URL, ARN)."""
    client = session.client("sqs")
    url = client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    return url, client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def build(
    session: Any, *, source_topic: bool = False, redrive: bool = True, dlq_last: bool = False, elsewhere: bool = False
) -> tuple[list[tuple[str, str]], str]:
    """The step's resources, as events in the order made, and the queue's name. `source_topic`: an older topic is
    made first and the queue's policy names it; `redrive`: the queue moves messages to the dead-letter queue;
    `dlq_last`: the dead-letter queue's event comes after the queue's; `elsewhere`: the topic is subscribed to
    another queue, made first, instead of the queue."""
    sns_client, events = session.client("sns"), []
    if elsewhere:
        other_url, other_arn = queue(session, unique("elsewhere"))
        events.append(("AWS::SQS::Queue", other_url))
    source = None
    if source_topic:
        source = sns_client.create_topic(Name=unique("old"))["TopicArn"]
        events.append(("AWS::SNS::Topic", source))
    topic = sns_client.create_topic(Name=unique("events"))["TopicArn"]
    events.append(("AWS::SNS::Topic", topic))
    dlq_url, dlq_arn = queue(session, unique("dlq"))
    attributes = {}
    if redrive:
        attributes["RedrivePolicy"] = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "3"})
    name = unique("queue")
    url, arn = queue(session, name, **attributes)
    events += [("AWS::SQS::Queue", url), ("AWS::SQS::Queue", dlq_url)][:: 1 if dlq_last else -1]
    statement = {
        "Effect": "Allow",
        "Principal": {"Service": "sns.amazonaws.com"},
        "Action": "sqs:SendMessage",
        "Resource": arn,
        "Condition": {"ArnEquals": {"aws:SourceArn": source or topic}},
    }
    policy = json.dumps({"Version": "2012-10-17", "Statement": [statement]})
    session.client("sqs").set_queue_attributes(QueueUrl=url, Attributes={"Policy": policy})
    subscription = sns_client.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=other_arn if elsewhere else arn,
        Attributes={"RawMessageDelivery": "true"},
    )["SubscriptionArn"]
    events.append(("AWS::SNS::Subscription", subscription))
    return events, name


def judge(session: Any, spec: StepSpec, events: list[tuple[str, str]], own: bool) -> dict[str, Any]:
    step = Step(session, make_context(spec, events=events))
    with step:
        evaluate(step, own=own)
    return step.result()


@pytest.mark.parametrize("own", [True, False], ids=["topic-subscribed", "topic-asks-nothing"])
def test_the_right_build_passes(aws_session, step_spec, own: bool) -> None:
    events, _ = build(aws_session)
    result = judge(aws_session, step_spec, events, own)
    assert result["success"] is True, result["message"]


@pytest.mark.parametrize("own", [True, False], ids=["topic-subscribed", "topic-asks-nothing"])
def test_a_queue_policy_naming_an_older_topic_is_blamed_not_the_subscription(aws_session, step_spec, own: bool) -> None:
    events, name = build(aws_session, source_topic=True)
    result = judge(aws_session, step_spec, events, own)
    issue = result["failure_context"]["issue"]
    assert result["success"] is False
    assert issue.startswith(f"SQS queue {name}"), issue
    assert "sqs:SendMessage" in issue, issue
    statuses = {e["name"]: e["status"] for e in result["validated"]}
    assert statuses["03_01_queue"] == "not_found", statuses
    assert statuses["03_01_subscription"] == "found", statuses


@pytest.mark.parametrize("own", [True, False], ids=["topic-subscribed", "topic-asks-nothing"])
@pytest.mark.parametrize("dlq_last", [False, True], ids=["dlq-first", "dlq-last"])
def test_a_queue_without_redrive_is_blamed_not_the_unused_dead_letter_queue(
    aws_session, step_spec, own: bool, dlq_last: bool
) -> None:
    events, name = build(aws_session, redrive=False, dlq_last=dlq_last)
    result = judge(aws_session, step_spec, events, own)
    issue = result["failure_context"]["issue"]
    assert result["success"] is False
    assert issue.startswith(f"SQS queue {name}"), issue
    assert "dead-letter queue" in issue, issue
    statuses = {e["name"]: e["status"] for e in result["validated"]}
    assert statuses["03_01_queue"] == "not_found", statuses
    assert statuses["03_01_dead_letter_queue"] == "found", statuses


def test_a_topic_subscribed_to_another_queue_is_blamed_not_the_queue(aws_session, step_spec) -> None:
    events, _ = build(aws_session, elsewhere=True)
    result = judge(aws_session, step_spec, events, True)
    issue = result["failure_context"]["issue"]
    assert result["success"] is False
    assert issue.startswith("SNS topic events-"), issue
    assert "subscriptions should be sqs" in issue and "elsewhere-" in issue, issue
    statuses = {e["name"]: e["status"] for e in result["validated"]}
    assert statuses["03_01_queue"] == "found", statuses
