"""`identity.decide` against moto's access control on real signed requests: a user holding generated inline
policies calls DynamoDB and SQS with its own access key (SigV4), and moto allows or refuses the call.

moto authorizes every non-S3 request against the resource `*`, so these policies name actions freely and
resources as `*` or one table (which such a request never matches, in IAM or in moto). Relies on moto's
`settings.INITIAL_NO_AUTH_ACTION_COUNT` (pinned moto < 6): seeding runs unauthenticated, each checked call does not.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto import mock_aws
from moto import settings as moto_settings

from harness.kit.identity import decide, sources
from tests.kit.conftest import unique

pytestmark = pytest.mark.moto

TABLE = "arn:aws:dynamodb:us-east-1:123456789012:table/orders"
CALLS = {"dynamodb:ListTables": ("dynamodb", "list_tables"), "sqs:ListQueues": ("sqs", "list_queues")}
ACTIONS = ["dynamodb:ListTables", "dynamodb:*", "dynamodb:List*", "dynamodb:GetItem", "sqs:*", "sqs:List*", "*"]


@pytest.fixture(scope="module")
def account() -> Iterator[boto3.Session]:
    with mock_aws():
        yield boto3.Session(region_name="us-east-1")


@pytest.fixture
def authorized(monkeypatch: pytest.MonkeyPatch):
    """Run one call with moto's access control on (every request signed and checked), then off again."""

    def call(session: boto3.Session, service: str, operation: str) -> bool:
        client = session.client(service)
        monkeypatch.setattr(moto_settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)
        try:
            getattr(client, operation)()
        except ClientError as error:
            # moto answers SQS's JSON protocol in XML, so botocore reads only the 403 there
            assert error.response["ResponseMetadata"]["HTTPStatusCode"] == 403, error
            assert "is not authorized to perform" in str(error), error
            return False
        finally:
            monkeypatch.setattr(moto_settings, "INITIAL_NO_AUTH_ACTION_COUNT", float("inf"))
        return True

    return call


statements = st.fixed_dictionaries(
    {
        "Effect": st.sampled_from(["Allow", "Deny"]),
        "Action": st.one_of(st.sampled_from(ACTIONS), st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=3)),
        "Resource": st.sampled_from(["*", TABLE]),
    }
)


def user_with(account: boto3.Session, statements: list[dict[str, Any]]) -> boto3.Session:
    iam = account.client("iam")
    name = unique("learner")
    iam.create_user(UserName=name)
    policy = {"Version": "2012-10-17", "Statement": statements}
    iam.put_user_policy(UserName=name, PolicyName="lab", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName=name)["AccessKey"]
    return boto3.Session(
        aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"], region_name="us-east-1"
    )


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(statements, min_size=1, max_size=3), st.sampled_from(sorted(CALLS)))
def test_signed_requests_agree_with_decide(account, authorized, policy_statements, action) -> None:
    learner = user_with(account, policy_statements)
    held, invalid = sources([("inline policy lab", {"Statement": policy_statements})])
    assert not invalid
    assert authorized(learner, *CALLS[action]) == decide(held, action, "*").allowed
