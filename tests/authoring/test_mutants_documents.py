"""Mutants inside JSON documents passed as strings (redrive and filter policies, event patterns, state machine
definitions, resource and trust policies), numbers by their meaning, and the table that lists every mutant."""

from __future__ import annotations

import io
import json

import botocore.session
from rich.console import Console

from harness.authoring.mutants import OTHER_ACCOUNT, Call, mutants
from harness.authoring.mutation import MutantResult, MutationRun
from harness.commands.mutate import print_run

ACCOUNT = "123456789012"
URL = f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}"
ARN = f"arn:aws:sqs:us-east-1:{ACCOUNT}"


def call(service: str, operation: str, params: dict, response: dict | None = None, ordinal: int = 1) -> Call:
    shape = botocore.session.get_session().get_service_model(service).operation_model(operation).input_shape
    return Call(service, operation, ordinal, params, response or {}, shape)


def found(calls: list[Call], created: dict[str, str] | None = None) -> dict[str, dict]:
    """Mutant id -> the changed parameters."""
    return {m.id: m.params for m in mutants(calls, created=created)}


def queue(name: str, ordinal: int, **attributes: str) -> Call:
    params = {"QueueName": name, **({"Attributes": attributes} if attributes else {})}
    return call("sqs", "CreateQueue", params, {"QueueUrl": f"{URL}/{name}"}, ordinal)


def test_a_redrive_policy_gets_its_count_by_meaning_and_another_target_queue() -> None:
    redrive = json.dumps({"deadLetterTargetArn": f"{ARN}:orders-dlq", "maxReceiveCount": 5})
    calls = [queue("orders-dlq", 1), queue("audit", 2), queue("orders", 3, RedrivePolicy=redrive)]
    created = {f"{URL}/orders-dlq": "AWS::SQS::Queue", f"{URL}/audit": "AWS::SQS::Queue"}
    changed = found(calls, created)

    def policy(mutant_id: str) -> dict:
        return json.loads(changed[mutant_id]["Attributes"]["RedrivePolicy"])

    assert policy("CreateQueue#3 Attributes.RedrivePolicy.maxReceiveCount=6")["maxReceiveCount"] == 6
    assert policy("CreateQueue#3 Attributes.RedrivePolicy.maxReceiveCount=10")["maxReceiveCount"] == 10
    swapped = policy(f"CreateQueue#3 Attributes.RedrivePolicy.deadLetterTargetArn={ARN}:audit")
    assert swapped == {"deadLetterTargetArn": f"{ARN}:audit", "maxReceiveCount": 5}  # an ARN, as the solve wrote


def test_a_count_written_as_text_is_changed_by_its_meaning_too() -> None:
    redrive = json.dumps({"deadLetterTargetArn": f"{ARN}:dlq", "maxReceiveCount": "3"})
    changed = found([queue("orders", 1, RedrivePolicy=redrive)])
    counts = sorted(i for i in changed if "maxReceiveCount" in i)
    assert counts == [
        "CreateQueue Attributes.RedrivePolicy.maxReceiveCount=4",
        "CreateQueue Attributes.RedrivePolicy.maxReceiveCount=6",
    ]


def test_an_event_pattern_and_a_filter_policy_get_their_values_changed() -> None:
    pattern = {"source": ["aws.s3"], "detail-type": ["Object Created"], "detail": {"bucket": {"name": ["site"]}}}
    rule = call("events", "PutRule", {"Name": "uploads", "EventPattern": json.dumps(pattern)})
    changed = found([rule])
    other = json.loads(changed["PutRule EventPattern.detail.bucket.name[0]=site-other"]["EventPattern"])
    assert other == {**pattern, "detail": {"bucket": {"name": ["site-other"]}}}
    assert "PutRule EventPattern.source[0]=aws.s3-other" in changed
    subscribe = call(
        "sns",
        "Subscribe",
        {
            "TopicArn": f"arn:aws:sns:us-east-1:{ACCOUNT}:orders",
            "Protocol": "sqs",
            "Endpoint": f"{ARN}:orders",
            "Attributes": {"FilterPolicy": json.dumps({"event": ["order_placed"]}), "RawMessageDelivery": "true"},
        },
    )
    filtered = found([subscribe])["Subscribe Attributes.FilterPolicy.event[0]=order_placed-other"]
    assert json.loads(filtered["Attributes"]["FilterPolicy"]) == {"event": ["order_placed-other"]}


def test_a_state_machine_definition_gets_its_retries_by_meaning() -> None:
    definition = {
        "StartAt": "Save",
        "States": {
            "Save": {
                "Type": "Task",
                "Resource": f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:save",
                "Retry": [{"ErrorEquals": ["States.TaskFailed"], "MaxAttempts": 3}],
                "End": True,
            }
        },
    }
    params = {"name": "orders", "definition": json.dumps(definition), "roleArn": f"arn:aws:iam::{ACCOUNT}:role/sfn"}
    changed = found([call("stepfunctions", "CreateStateMachine", params)])
    more = json.loads(changed["CreateStateMachine definition.States.Save.Retry[0].MaxAttempts=6"]["definition"])
    assert more["States"]["Save"]["Retry"][0]["MaxAttempts"] == 6
    assert "CreateStateMachine definition.States.Save.Retry[0].MaxAttempts=4" in changed
    assert "CreateStateMachine definition.States.Save.End=false" in changed


def test_a_queue_policy_gets_its_principal_and_condition_changed() -> None:
    statement = {
        "Effect": "Allow",
        "Principal": {"Service": "sns.amazonaws.com"},
        "Action": "sqs:SendMessage",
        "Resource": f"{ARN}:orders",
        "Condition": {"ArnEquals": {"aws:SourceArn": f"arn:aws:sns:us-east-1:{ACCOUNT}:orders"}},
    }
    policy = json.dumps({"Version": "2012-10-17", "Statement": [statement]})
    changed = found([queue("orders", 1, Policy=policy)])

    def statement_of(mutant_id: str) -> dict:
        return json.loads(changed[f"CreateQueue Attributes.Policy.Statement[0].{mutant_id}"]["Attributes"]["Policy"])[
            "Statement"
        ][0]

    assert statement_of("Principal.Service=lambda.amazonaws.com")["Principal"] == {"Service": "lambda.amazonaws.com"}
    assert statement_of("Principal=*")["Principal"] == "*"
    source = f"arn:aws:sns:us-east-1:{ACCOUNT}:orders-other"
    assert statement_of(f"Condition.aws:SourceArn={source}")["Condition"] == {"ArnEquals": {"aws:SourceArn": source}}
    assert "CreateQueue Attributes.Policy.Statement[0]-Condition" in changed


def test_an_account_principal_and_a_transport_condition_are_swapped() -> None:
    statement = {
        "Effect": "Deny",
        "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
        "Action": "s3:*",
        "Resource": "arn:aws:s3:::site/*",
        "Condition": {"Bool": {"aws:SecureTransport": "false"}, "StringEquals": {"aws:SourceAccount": ACCOUNT}},
    }
    put = call("s3", "PutBucketPolicy", {"Bucket": "site", "Policy": json.dumps({"Statement": [statement]})})
    changed = found([put])
    prefix = "PutBucketPolicy Policy.Statement[0]."
    swapped = json.loads(changed[f"{prefix}Principal.AWS={OTHER_ACCOUNT}"]["Policy"])["Statement"][0]
    assert swapped["Principal"] == {"AWS": OTHER_ACCOUNT}
    flipped = json.loads(changed[f"{prefix}Condition.aws:SecureTransport=true"]["Policy"])["Statement"][0]
    assert flipped["Condition"]["Bool"] == {"aws:SecureTransport": "true"}
    assert f"{prefix}Condition.aws:SourceAccount=111122223333" in changed


def test_a_document_the_evaluators_do_not_read_is_left_alone() -> None:
    manifest = json.dumps({"schemaVersion": 2, "config": {"size": 7}})
    put = call("ecr", "PutImage", {"repositoryName": "orders", "imageManifest": manifest, "imageTag": "1.0.0"})
    assert not [i for i in found([put]) if "imageManifest" in i]


def test_the_table_lists_every_mutant_with_its_outcome_and_why() -> None:
    run = MutationRun(
        scenarios=[],
        mutants=[
            MutantResult("01.01", "CreateQueue maxReceiveCount=6", "c", "sqs.CreateQueue", "killed", "s", issue="5!"),
            MutantResult("01.01", "omit CreateQueue", "c", "-", "invalid", "s", reason="the emulator refused it"),
            MutantResult("01.02", "PutRule EventPattern.source[0]=x", "c", "-", "equivalent", "s", reason="same"),
        ],
    )
    out = io.StringIO()
    print_run(run, Console(file=out, width=200), as_json=False)
    shown = out.getvalue()
    for text in ("CreateQueue maxReceiveCount=6", "killed", "5!", "omit CreateQueue", "the emulator refused it"):
        assert text in shown
    assert "PutRule EventPattern.source[0]=x" in shown and "equivalent" in shown
    assert shown.index("omit CreateQueue") < shown.index("mutation score")
