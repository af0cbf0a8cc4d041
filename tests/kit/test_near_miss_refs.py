"""An output that refers to another output none fits judges that output's closest candidate: the step's issue is
the near miss itself (the queue's max receives), never "cannot be checked" on the output that refers to it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.core.lab import StepSpec, load_lab
from harness.kit import sns, sqs
from harness.kit.bounds import at_most
from harness.kit.step import Step
from tests.kit.conftest import make_context, unique

SPEC = """\
project: near-miss
objectives:
  - id: "01"
    steps:
      - id: "01"
        outputs:
          - {name: 01_01_topic, type: AWS::SNS::Topic}
          - {name: 01_01_queue, type: AWS::SQS::Queue}
          - {name: 01_01_dlq, type: AWS::SQS::Queue}
"""


@pytest.fixture(scope="module")
def step_spec(tmp_path_factory: pytest.TempPathFactory) -> StepSpec:
    root: Path = tmp_path_factory.mktemp("near-miss-lab")
    (root / "specs").mkdir()
    (root / "specs" / "near.yaml").write_text(SPEC, encoding="utf-8")
    return load_lab(root).steps["01.01"]


def topic_first(step: Step) -> None:
    """The topic is found first and refers to the queue found after it, which refers to the dead-letter queue."""
    queue, dlq = step.output("01_01_queue"), step.output("01_01_dlq")
    step.find("01_01_topic", sns.TOPIC, [sns.subscribed("sqs", queue)])
    step.find("01_01_queue", sqs.QUEUE, [sqs.dead_letter_queue(dlq, max_receives=at_most(5))])
    step.find("01_01_dlq", sqs.QUEUE, [sqs.retention(1209600)])


def build(session: Any, receives: int) -> list[tuple[str, str]]:
    sqs_client, sns_client = session.client("sqs"), session.client("sns")
    dlq = sqs_client.create_queue(QueueName=unique("dlq"), Attributes={"MessageRetentionPeriod": "1209600"})["QueueUrl"]
    dlq_arn = sqs_client.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    redrive = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": receives})
    queue = sqs_client.create_queue(QueueName=unique("ticks"), Attributes={"RedrivePolicy": redrive})["QueueUrl"]
    arn = sqs_client.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    topic = sns_client.create_topic(Name=unique("ticks"))["TopicArn"]
    sns_client.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    return [("AWS::SNS::Topic", topic), ("AWS::SQS::Queue", dlq), ("AWS::SQS::Queue", queue)]


def judge(session: Any, spec: StepSpec, events: list[tuple[str, str]]) -> dict[str, Any]:
    step = Step(session, make_context(spec, events=events))
    with step:
        topic_first(step)
    return step.result()


def test_the_right_build_passes(aws_session, step_spec) -> None:
    result = judge(aws_session, step_spec, build(aws_session, 3))
    assert result["success"] is True, result["message"]


def test_a_queue_redriving_too_late_is_named_for_it_not_the_topic_that_refers_to_it(aws_session, step_spec) -> None:
    result = judge(aws_session, step_spec, build(aws_session, 10))
    issue = result["failure_context"]["issue"]
    assert result["success"] is False
    assert issue.startswith("SQS queue ticks-"), issue
    assert "at most 5 receives" in issue and "10" in issue, issue
    assert "cannot be checked" not in issue, issue
    statuses = {e["name"]: e["status"] for e in result["validated"]}
    assert statuses == {"01_01_topic": "found", "01_01_queue": "not_found", "01_01_dlq": "found"}
